import { Trans, useLingui } from '@lingui/react/macro';
import { useEffect, useId, useRef } from 'react';
import { blankRow, type Row, type RowsSpec } from './fields';

/**
 * A list of small records (authors, links, alternate titles) as rows of labelled inputs, each row with a Remove
 * button and an Add button below: every step is a button or a field, so the keyboard does it all. `problems` (one
 * a row) are said under their row, and mark its inputs invalid.
 */
export function RowsEditor({
  spec,
  value,
  problems = [],
  onChange,
}: {
  spec: RowsSpec;
  value: readonly Row[];
  problems?: readonly (string | null)[];
  onChange(next: Row[]): void;
}) {
  const id = useId();
  const { t, i18n } = useLingui();
  const addButton = useRef<HTMLButtonElement>(null);
  // Focus follows the keyboard: to a new row's first input, and to "Add" once a row is removed.
  const pendingFocus = useRef<'new-row' | 'add' | null>(null);
  useEffect(() => {
    const wanted = pendingFocus.current;
    pendingFocus.current = null;
    if (wanted === 'new-row') document.getElementById(`${id}-${spec.columns[0]!.key}-${value.length - 1}`)?.focus();
    if (wanted === 'add') addButton.current?.focus();
  });
  const item = i18n._(spec.item);
  const itemStart = i18n._(spec.itemStart);
  const set = (i: number, key: string, text: string) => onChange(value.map((r, j) => (j === i ? { ...r, [key]: text } : r)));
  return (
    <div className="rows-editor">
      {value.length === 0 && <p className="hint">{i18n._(spec.none)}</p>}
      <ul>
        {value.map((row, i) => {
          const problem = problems[i] ?? null;
          const number = i + 1;
          const which = row[spec.columns[0]!.key] || number;
          return (
            <li key={i}>
              <div className="inline">
                {spec.columns.map((c) => {
                  const inputId = `${id}-${c.key}-${i}`;
                  const column = i18n._(c.label);
                  const label = t`${itemStart} ${number} ${column}`;
                  const text = row[c.key] ?? '';
                  const invalid = problem !== null ? { 'aria-invalid': true, 'aria-describedby': `${id}-problem-${i}` } : {};
                  return (
                    <span key={c.key} className="rows-editor-cell">
                      <label htmlFor={inputId} className="visually-hidden">
                        {label}
                      </label>
                      {c.options ? (
                        <select id={inputId} value={text} onChange={(e) => set(i, c.key, e.target.value)}>
                          {[...new Set([...c.options, text])].map((o) => {
                            const optionLabel = c.optionLabels?.[o];
                            return (
                              <option key={o} value={o}>
                                {optionLabel ? i18n._(optionLabel) : o}
                              </option>
                            );
                          })}
                        </select>
                      ) : (
                        <input
                          id={inputId}
                          // Not type="url": the browser's own check would stop the form before it says what is wrong.
                          inputMode={c.url ? 'url' : undefined}
                          value={text}
                          placeholder={c.placeholder ? i18n._(c.placeholder) : undefined}
                          onChange={(e) => set(i, c.key, e.target.value)}
                          {...invalid}
                        />
                      )}
                    </span>
                  );
                })}
                <button
                  type="button"
                  className="small"
                  onClick={() => {
                    onChange(value.filter((_, j) => j !== i));
                    pendingFocus.current = 'add';
                  }}
                >
                  <Trans>
                    Remove
                    <span className="visually-hidden">
                      {' '}
                      {item} {which}
                    </span>
                  </Trans>
                </button>
              </div>
              {problem && (
                <p id={`${id}-problem-${i}`} className="error-text">
                  {problem}
                </p>
              )}
            </li>
          );
        })}
      </ul>
      <button
        ref={addButton}
        type="button"
        className="small"
        onClick={() => {
          onChange([...value, blankRow(spec)]);
          pendingFocus.current = 'new-row';
        }}
      >
        {i18n._(spec.add)}
      </button>
    </div>
  );
}
