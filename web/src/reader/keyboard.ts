/**
 * Whether a key press is the reader's: not while typing in a field, moving the slider or inside a panel, and
 * not Space or Enter on a focused button or checkbox (they press it). Arrows on a focused checkbox still turn.
 */
export function readerKeyTarget(e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement | null;
  if (!target || !(target instanceof HTMLElement)) return true;
  if (target.isContentEditable || target.closest('textarea, select, [role="dialog"]')) return false;
  if (target instanceof HTMLInputElement && !['checkbox', 'radio', 'button'].includes(target.type)) return false;
  if ((e.key === ' ' || e.key === 'Enter') && target.closest('button, a, input')) return false;
  return true;
}
