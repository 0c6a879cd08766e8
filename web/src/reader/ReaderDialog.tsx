import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, type ReactNode } from 'react';

/** The reader's modal panel: focus moves into it and back, Escape or a click outside closes it. */
export function ReaderDialog({
  title,
  onClose,
  children,
  className,
}: {
  title: string;
  onClose(): void;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    // The dialog's main action when it names one (data-autofocus), else its first control.
    (
      ref.current?.querySelector<HTMLElement>('[data-autofocus]') ?? ref.current?.querySelector<HTMLElement>('button, a, input, select')
    )?.focus();
    return () => previous?.focus?.();
  }, []);
  return (
    <div className="reader-overlay" onPointerDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={ref}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        className={`reader-dialog ${className ?? ''}`}
        onKeyDown={(e) => e.key === 'Escape' && onClose()}
      >
        <div className="reader-dialog-head">
          <h2>{title}</h2>
          <button type="button" className="small" onClick={onClose}>
            <Trans>Close</Trans>
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}
