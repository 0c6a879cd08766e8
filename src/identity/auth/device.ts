import { createHash } from 'node:crypto';

/** What the request says about the device; the route reads it from the headers. */
export interface DeviceHint {
  /** `X-Device-Id`: a reader app's own stable device identity. */
  deviceId?: string;
  userAgent?: string;
}

/** The device hint of a request (any request-like value with headers): `X-Device-Id` and `User-Agent`. */
export function deviceHint(req: { headers: Record<string, string | string[] | undefined> }): DeviceHint {
  const header = req.headers['x-device-id'];
  const userAgent = req.headers['user-agent'];
  return { deviceId: Array.isArray(header) ? header[0] : header, userAgent: Array.isArray(userAgent) ? userAgent[0] : userAgent };
}

export interface Device {
  /** `key:<api key id>`, `hdr:<X-Device-Id>` or `ua:<first 16 hex of SHA-256(User-Agent)>`. */
  id: string;
  kind: 'api_key' | 'header' | 'user_agent';
  name: string;
  /** The request's User-Agent, shown with the device. */
  userAgent?: string;
}

/**
 * Spec, Authentication rule 9: reading statistics are attributed to the API key when one is used, otherwise to
 * the identity a reader app sends (`X-Device-Id`), otherwise to a hash of the User-Agent.
 */
export function resolveDevice(apiKey: { id: string; name: string } | null, hint: DeviceHint): Device {
  const agent = hint.userAgent?.trim() ?? '';
  const userAgent = agent ? { userAgent: agent.slice(0, 300) } : {};
  if (apiKey) return { id: `key:${apiKey.id}`, kind: 'api_key', name: apiKey.name, ...userAgent };
  const header = hint.deviceId?.trim().slice(0, 100);
  if (header) return { id: `hdr:${header}`, kind: 'header', name: header, ...userAgent };
  return {
    id: `ua:${createHash('sha256').update(agent).digest('hex').slice(0, 16)}`,
    kind: 'user_agent',
    name: agent.slice(0, 120) || 'Unknown device',
    ...userAgent,
  };
}

/**
 * Where a progress write came from, for the ledger: the protocol, the position as that protocol gave it, and a
 * percentage when the protocol has a finer one than the page (KOReader's reflowable books).
 */
export interface ProgressOrigin {
  protocol: string;
  position?: Record<string, unknown>;
  percentage?: number;
  /**
   * When the client says it recorded the position (ISO 8601). A position recorded before the current one's time
   * is kept in the history but does not become the position (a device that was offline sends it late).
   */
  clientAt?: string;
  /** The reader app's own identity, when the protocol carries one (KOReader's device_id and device name). */
  client?: { id?: string | null; name?: string | null };
  /** The client's id of a queued position: one already recorded for this user is not recorded again. */
  entryId?: string;
}
