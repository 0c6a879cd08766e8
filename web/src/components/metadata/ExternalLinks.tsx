import { useLingui } from '@lingui/react/macro';
import { isWebAddress } from './fields';

/**
 * A series' or a book's links, as links out of the app (a new tab, no opener, no referrer). Only web addresses are
 * made into links: a file's `Web` field could hold anything.
 */
export function ExternalLinks({ links }: { links: readonly { label: string; url: string }[] }) {
  const { t } = useLingui();
  const shown = links.filter((l) => isWebAddress(l.url));
  if (shown.length === 0) return null;
  return (
    <ul className="external-links" aria-label={t`Links`}>
      {shown.map((l, i) => (
        <li key={i}>
          <a href={l.url} target="_blank" rel="noopener noreferrer">
            {l.label.trim() || new URL(l.url).host}
          </a>
        </li>
      ))}
    </ul>
  );
}
