import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { components } from '../../api/client';
import { serverAddressesQuery, setupStatusQuery } from '../../api/queries';
import { koreaderSyncUrl, opdsAccess } from '../../lib/opds-link';
import { shareableAddress, type ShareableAddress } from '../../lib/server-address';

type CreatedKey = components['schemas']['CreatedApiKey'];

/** A QR code drawn on a canvas (the encoder is loaded only when one is shown). */
function QrCode({ text, label }: { text: string; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [qrError, setQrError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    void import('qrcode')
      .then(async ({ default: QRCode }) => {
        if (!cancelled && canvas.current) await QRCode.toCanvas(canvas.current, text, { width: 240, margin: 2, errorCorrectionLevel: 'M' });
      })
      .catch((err: unknown) => !cancelled && setQrError(err instanceof Error ? err.message : String(err)));
    return () => {
      cancelled = true;
    };
  }, [text]);
  return (
    <>
      <canvas ref={canvas} className="qr" role="img" aria-label={label} data-qr-text={text} />
      {qrError && (
        <p className="error-text">
          <Trans>The QR code could not be drawn: {qrError}</Trans>
        </p>
      )}
    </>
  );
}

/**
 * What is said beside the QR code about the address in it: nothing when it is `server.public_url` or the address
 * this browser used; when that address is loopback, that a phone cannot use it, and the server's LAN addresses to
 * choose from; when the addresses could not be loaded, that the browser's own address is a guess.
 */
export function AddressNote({ address, onChoose, onRetry }: { address: ShareableAddress; onChoose(url: string): void; onRetry(): void }) {
  const noteId = useId();
  switch (address.kind) {
    case 'lan': {
      const { loopbackUrl } = address;
      return (
        <div className="stack address-note">
          <p id={noteId}>
            <Trans>
              This address, <span className="mono">{loopbackUrl}</span>, only works on this computer. A phone or e-reader on your network
              can use:
            </Trans>
          </p>
          <fieldset className="choice-group" aria-describedby={noteId}>
            <legend>
              <Trans>Address for other devices</Trans>
            </legend>
            {address.choices.map((url) => (
              <label key={url} className="choice">
                <input type="radio" name={`address-${noteId}`} value={url} checked={address.base === url} onChange={() => onChoose(url)} />
                <span className="mono">{url}</span>
              </label>
            ))}
          </fieldset>
        </div>
      );
    }
    case 'loopback-only': {
      const { loopbackUrl } = address;
      return (
        <p className="address-note">
          <Trans>
            This address, <span className="mono">{loopbackUrl}</span>, only works on this computer, and this server offers no address on
            your network (it listens on this computer only, or has no network address). Set <code>server.host</code> to <code>0.0.0.0</code>{' '}
            to listen on your network, or <code>server.public_url</code> to the address a phone or e-reader should use.
          </Trans>
        </p>
      );
    }
    case 'failed': {
      const { base } = address;
      return (
        <div className="address-note" role="alert">
          <p>
            <Trans>
              This server's addresses could not be loaded, so these use the address this browser is using,{' '}
              <span className="mono">{base}</span>, which another device may not reach.
            </Trans>
          </p>
          <div className="actions">
            <button type="button" onClick={onRetry}>
              <Trans>Try again</Trans>
            </button>
          </div>
        </div>
      );
    }
    default:
      return null;
  }
}

/** The new key, shown once: copy it, or scan the QR code with the phone's reading app (and KOReader's sync). */
export function NewApiKey({ created, onDone }: { created: CreatedKey; onDone(): void }) {
  const { t } = useLingui();
  const { name: keyName } = created;
  const addresses = useQuery(serverAddressesQuery);
  const [chosen, setChosen] = useState<string | null>(null);
  const address = shareableAddress(addresses.data, addresses.isError, window.location.origin, chosen);
  const syncPath = useQuery(setupStatusQuery).data?.koreader_sync_path ?? null;
  const canSync = created.permissions.includes('progress-read') && created.permissions.includes('progress-write');

  return (
    <div className="card stack new-key" role="region" aria-label={t`New API key`}>
      <h3>
        <Trans>Key “{keyName}” created</Trans>
      </h3>
      <p>
        <Trans>
          <strong>Copy it now:</strong> it is shown only once and cannot be recovered.
        </Trans>
      </p>
      <CopyField label={t`API key`} value={created.key} />
      {address.kind === 'loading' ? (
        <p className="hint" role="status">
          <Trans>Finding the address other devices reach this server by…</Trans>
        </p>
      ) : (
        <ForDevices
          base={address.base}
          keyText={created.key}
          note={<AddressNote address={address} onChoose={setChosen} onRetry={() => void addresses.refetch()} />}
          syncPath={syncPath}
          canSync={canSync}
        />
      )}
      <button type="button" onClick={onDone}>
        <Trans>Done</Trans>
      </button>
    </div>
  );
}

/** The QR codes and the fields to type by hand, for the server at `base`. */
function ForDevices({
  base,
  keyText,
  note,
  syncPath,
  canSync,
}: {
  base: string;
  keyText: string;
  note: ReactNode;
  syncPath: string | null;
  canSync: boolean;
}) {
  const { t } = useLingui();
  const access = opdsAccess(base, keyText);
  const syncUrl = syncPath ? koreaderSyncUrl(base, syncPath, keyText) : null;
  return (
    <>
      <div className="qr-block">
        <QrCode text={access.qrText} label={t`QR code with the OPDS address and this key, for a phone reading app`} />
        <div className="stack">
          {note}
          <p className="hint">
            <Trans>
              Scan this with a reading app (Panels, Chunky, KOReader…) to add this server's OPDS catalog with the key. Or enter the fields
              by hand:
            </Trans>
          </p>
          <CopyField label={t`OPDS catalog URL`} value={access.catalogUrl} />
          <CopyField label={t`Username`} value={access.username} />
          <p className="hint">
            <Trans>Password: the API key above.</Trans>
          </p>
        </div>
      </div>
      {syncUrl && canSync && (
        <div className="qr-block" role="group" aria-label={t`KOReader progress sync`}>
          <QrCode text={syncUrl} label={t`QR code with the KOReader sync server address and this key`} />
          <div className="stack">
            <h4>
              <Trans>KOReader progress sync</Trans>
            </h4>
            <p className="hint">
              <Trans>
                In KOReader, open Tools → Progress sync → Custom sync server and paste this address (or scan the code); any user name and
                password will do, the key in the address identifies you.
              </Trans>
            </p>
            <CopyField label={t`KOReader sync server`} value={syncUrl} />
          </div>
        </div>
      )}
      {syncPath && !canSync && (
        <p className="hint">
          <Trans>This key cannot sync reading progress: for KOReader's progress sync, create one with the Reader app preset.</Trans>
        </p>
      )}
    </>
  );
}

/** A read-only field with a copy button; falls back to selecting the text where the clipboard API is missing (plain HTTP). */
/** A value to copy; `multiline`: shown whole, wrapped over lines (a long line that matters to its end). */
export function CopyField({ label, value, multiline = false }: { label: string; value: string; multiline?: boolean }) {
  const input = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  // A wrapped line is as tall as its text at the field's width (browsers without `field-sizing: content`).
  useEffect(() => {
    const el = input.current;
    if (!multiline || !el || typeof ResizeObserver !== 'function') return;
    const fit = () => {
      el.style.height = 'auto';
      el.style.height = `${el.scrollHeight + el.offsetHeight - el.clientHeight}px`;
    };
    fit();
    let width = el.clientWidth;
    const watch = new ResizeObserver(() => {
      if (el.clientWidth === width) return;
      width = el.clientWidth;
      fit();
    });
    watch.observe(el);
    return () => watch.disconnect();
  }, [multiline, value]);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      input.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <div className="field">
      <label htmlFor={`copy-${label}`}>{label}</label>
      <div className="inline">
        {multiline ? (
          <textarea
            id={`copy-${label}`}
            ref={input}
            readOnly
            value={value}
            rows={1}
            className="mono copy-multiline"
            onFocus={(e) => e.target.select()}
          />
        ) : (
          <input id={`copy-${label}`} ref={input} readOnly value={value} className="mono" onFocus={(e) => e.target.select()} />
        )}
        <button type="button" onClick={() => void copy()}>
          {copied ? (
            <Trans>
              Copied<span className="visually-hidden"> {label}</span>
            </Trans>
          ) : (
            <Trans>
              Copy<span className="visually-hidden"> {label}</span>
            </Trans>
          )}
        </button>
      </div>
    </div>
  );
}
