import { BlockList, isIP } from 'node:net';

/** `address` or `address/prefix` (CIDR), IPv4 or IPv6. */
function parseEntry(entry: string): { address: string; family: 'ipv4' | 'ipv6'; prefix: number } | undefined {
  const [address = '', prefixText, extra] = entry.trim().split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address, family: version === 4 ? 'ipv4' : 'ipv6', prefix };
}

export const isTrustedPeerEntry = (entry: string): boolean => parseEntry(entry) !== undefined;

/**
 * Whether a TCP peer address is one of the configured proxies (node's BlockList does the CIDR matching). An
 * IPv4 peer on a dual-stack socket arrives as `::ffff:a.b.c.d` and is matched as the IPv4 address it is.
 */
export function trustedPeers(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (!parsed) throw new Error(`not an address or CIDR range: ${entry}`);
    list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return (address) => {
    if (!address) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const plain = mapped ?? address;
    const version = isIP(plain);
    return version !== 0 && list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
  };
}
