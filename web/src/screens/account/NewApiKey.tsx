import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { components } from '../../api/client';
import { setupStatusQuery } from '../../api/queries';
import { koreaderSyncUrl, opdsAccess } from '../../lib/opds-link';

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
      {qrError && <p className="error-text">The QR code could not be drawn: {qrError}</p>}
    </>
  );
}

/** The new key, shown once: copy it, or scan the QR code with the phone's reading app (and KOReader's sync). */
export function NewApiKey({ created, onDone }: { created: CreatedKey; onDone(): void }) {
  const access = opdsAccess(window.location.origin, created.key);
  const syncPath = useQuery(setupStatusQuery).data?.koreader_sync_path ?? null;
  const canSync = created.permissions.includes('progress-read') && created.permissions.includes('progress-write');

  return (
    <div className="card stack new-key" role="region" aria-label="New API key">
      <h3>Key “{created.name}” created</h3>
      <p>
        <strong>Copy it now:</strong> it is shown only once and cannot be recovered.
      </p>
      <CopyField label="API key" value={created.key} />
      <div className="qr-block">
        <QrCode text={access.qrText} label="QR code with the OPDS address and this key, for a phone reading app" />
        <div className="stack">
          <p className="hint">
            Scan this with a reading app (Panels, Chunky, KOReader…) to add this server's OPDS catalog with the key. Or enter the fields by
            hand:
          </p>
          <CopyField label="OPDS catalog URL" value={access.catalogUrl} />
          <CopyField label="Username" value={access.username} />
          <p className="hint">Password: the API key above.</p>
        </div>
      </div>
      {syncPath && canSync && (
        <div className="qr-block" role="group" aria-label="KOReader progress sync">
          <QrCode
            text={koreaderSyncUrl(window.location.origin, syncPath, created.key)}
            label="QR code with the KOReader sync server address and this key"
          />
          <div className="stack">
            <h4>KOReader progress sync</h4>
            <p className="hint">
              In KOReader, open Tools → Progress sync → Custom sync server and paste this address (or scan the code); any user name and
              password will do, the key in the address identifies you.
            </p>
            <CopyField label="KOReader sync server" value={koreaderSyncUrl(window.location.origin, syncPath, created.key)} />
          </div>
        </div>
      )}
      {syncPath && !canSync && (
        <p className="hint">This key cannot sync reading progress: for KOReader's progress sync, create one with the Reader app preset.</p>
      )}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

/** A read-only field with a copy button; falls back to selecting the text where the clipboard API is missing (plain HTTP). */
function CopyField({ label, value }: { label: string; value: string }) {
  const input = useRef<HTMLInputElement>(null);
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
        <input id={`copy-${label}`} ref={input} readOnly value={value} className="mono" onFocus={(e) => e.target.select()} />
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
          <span className="visually-hidden"> {label}</span>
        </button>
      </div>
    </div>
  );
}
