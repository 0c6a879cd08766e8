/**
 * A progress bar with its value for assistive technology; `value` is a fraction 0..1. `partial`: a further fraction
 * drawn lighter after it (a series' books in progress, after those read); the value told is both together.
 */
export function ProgressBar({
  value,
  label,
  indeterminate = false,
  small = false,
  partial = 0,
}: {
  value: number;
  label: string;
  indeterminate?: boolean;
  small?: boolean;
  partial?: number;
}) {
  const clamp = (n: number) => Math.max(0, Math.min(1, n));
  const done = clamp(value);
  const more = clamp(done + clamp(partial)) - done;
  const percent = Math.round((done + more) * 100);
  return (
    <div
      className={`progress ${small ? 'small' : ''} ${indeterminate ? 'indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={indeterminate ? undefined : percent}
    >
      <div className="progress-fill" style={{ width: indeterminate ? undefined : `${done * 100}%` }} />
      {!indeterminate && more > 0 && <div className="progress-fill partial" style={{ width: `${more * 100}%` }} />}
    </div>
  );
}
