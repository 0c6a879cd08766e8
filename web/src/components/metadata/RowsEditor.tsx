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
  const addButton = useRef<HTMLButtonElement>(null);
  // Focus follows the keyboard: to a new row's first input, and to "Add" once a row is removed.
  const pendingFocus = useRef<'new-row' | 'add' | null>(null);
  useEffect(() => {
    const wanted = pendingFocus.current;
    pendingFocus.current = null;
    if (wanted === 'new-row') document.getElementById(`${id}-${spec.columns[0]!.key}-${value.length - 1}`)?.focus();
    if (wanted === 'add') addButton.current?.focus();
  });
  const item = spec.item.charAt(0).toUpperCase() + spec.item.slice(1);
  const set = (i: number, key: string, text: string) => onChange(value.map((r, j) => (j === i ? { ...r, [key]: text } : r)));
  return (
    <div className="rows-editor">
      {value.length === 0 && <p className="hint">No {spec.item}s.</p>}
      <ul>
        {value.map((row, i) => {
          const problem = problems[i] ?? null;
          return (
            <li key={i}>
              <div className="inline">
                {spec.columns.map((c) => {
                  const inputId = `${id}-${c.key}-${i}`;
                  const label = `${item} ${i + 1} ${c.label}`;
                  const text = row[c.key] ?? '';
                  const invalid = problem !== null ? { 'aria-invalid': true, 'aria-describedby': `${id}-problem-${i}` } : {};
                  return (
                    <span key={c.key} className="rows-editor-cell">
                      <label htmlFor={inputId} className="visually-hidden">
                        {label}
                      </label>
                      {c.options ? (
                        <select id={inputId} value={text} onChange={(e) => set(i, c.key, e.target.value)}>
                          {[...new Set([...c.options, text])].map((o) => (
                            <option key={o} value={o}>
                              {o}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <input
                          id={inputId}
                          // Not type="url": the browser's own check would stop the form before it says what is wrong.
                          inputMode={c.url ? 'url' : undefined}
                          value={text}
                          placeholder={c.label.charAt(0).toUpperCase() + c.label.slice(1)}
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
                  Remove<span className="visually-hidden"> {`${spec.item} ${row[spec.columns[0]!.key] || i + 1}`}</span>
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
        Add {spec.item}
      </button>
    </div>
  );
}
