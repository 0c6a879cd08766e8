import { t } from '@lingui/core/macro';
import { Cron } from 'croner';

export type CronCheck = { ok: true; nextRuns: Date[] } | { ok: false; message: string };

/**
 * Checks a library's scan schedule as the server will (croner, exactly five fields), and tells when it would
 * next run so the admin sees what the expression means. Empty means "no schedule" and is fine.
 */
export function checkCron(expression: string, from: Date = new Date(), runs = 3): CronCheck {
  const trimmed = expression.trim();
  if (trimmed === '') return { ok: true, nextRuns: [] };
  const fields = trimmed.split(/\s+/);
  const count = fields.length;
  if (count !== 5)
    return {
      ok: false,
      // In the active language (checked as the admin types, so during a render); croner's own reasons stay as they are.
      message: t`A schedule has five fields (minute hour day-of-month month day-of-week); this one has ${count}.`,
    };
  try {
    const cron = new Cron(trimmed, { paused: true });
    const nextRuns = cron.nextRuns(runs, from);
    cron.stop();
    return { ok: true, nextRuns };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
