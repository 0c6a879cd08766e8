/** A progress bar with its value for assistive technology; `value` is a fraction 0..1. */
export function ProgressBar({
  value,
  label,
  indeterminate = false,
  small = false,
}: {
  value: number;
  label: string;
  indeterminate?: boolean;
  small?: boolean;
}) {
  const percent = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <div
      className={`progress ${small ? 'small' : ''} ${indeterminate ? 'indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={indeterminate ? undefined : percent}
    >
      <div className="progress-fill" style={{ width: indeterminate ? undefined : `${percent}%` }} />
    </div>
  );
}
