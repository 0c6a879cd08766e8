import { Plural, Trans } from '@lingui/react/macro';
import { Link } from '@tanstack/react-router';
import type { components } from '../../api/client';

type Report = NonNullable<components['schemas']['WriteBackReport']>;

/**
 * What an edit does to the files of a library that writes metadata back (ComicInfo.xml in CBZ files): how many are
 * being written, where to see how it went, and what is not written and why.
 */
export function WriteBackNote({ report }: { report: Report }) {
  const queued = report.queued;
  const notWritten = report.not_written.length;
  const reasons = [...new Set(report.not_written.map((n) => n.reason))].join('; ');
  return (
    <div className="hint write-back-note" role="status">
      {report.queued > 0 && (
        <p>
          <Trans>
            Saved. The change is being written into <Plural value={queued} one="# file" other="# files" /> as ComicInfo.xml;{' '}
            <Link to="/admin/tasks">Tasks</Link> shows how it went.
          </Trans>
        </p>
      )}
      {report.not_written.length > 0 && (
        <p>
          <Trans>
            Saved in Colophon, not written into <Plural value={notWritten} one="# file" other="# files" />: {reasons}.
          </Trans>
        </p>
      )}
    </div>
  );
}
