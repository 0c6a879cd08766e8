import { Link } from '@tanstack/react-router';
import type { components } from '../../api/client';

type Report = NonNullable<components['schemas']['WriteBackReport']>;

/**
 * What an edit does to the files of a library that writes metadata back (ComicInfo.xml in CBZ files): how many are
 * being written, where to see how it went, and what is not written and why.
 */
export function WriteBackNote({ report }: { report: Report }) {
  const files = (n: number) => `${n} ${n === 1 ? 'file' : 'files'}`;
  return (
    <div className="hint write-back-note" role="status">
      {report.queued > 0 && (
        <p>
          Saved. The change is being written into {files(report.queued)} as ComicInfo.xml; <Link to="/admin/tasks">Tasks</Link> shows how it
          went.
        </p>
      )}
      {report.not_written.length > 0 && (
        <p>
          Saved in Colophon, not written into {files(report.not_written.length)}:{' '}
          {[...new Set(report.not_written.map((n) => n.reason))].join('; ')}.
        </p>
      )}
    </div>
  );
}
