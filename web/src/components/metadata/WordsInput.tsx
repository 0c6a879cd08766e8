import { Trans, useLingui } from '@lingui/react/macro';
import { useId, useState, type KeyboardEvent } from 'react';
import { Button, Tag, TagGroup, TagList } from 'react-aria-components';

/**
 * Genres or tags as removable chips and a field to add more (Enter or a comma), with the library's existing words
 * offered as suggestions. Words keep the case they are typed in and are kept once (compared case-insensitively).
 */
export function WordsInput({
  label,
  values,
  suggestions,
  onChange,
}: {
  label: string;
  values: readonly string[];
  suggestions: readonly string[];
  onChange(values: string[]): void;
}) {
  const id = useId();
  const { t } = useLingui();
  const [text, setText] = useState('');
  const add = () => {
    const words = text
      .split(',')
      .map((w) => w.trim())
      .filter(Boolean);
    setText('');
    const next = [...values];
    for (const w of words) if (!next.some((v) => v.toLowerCase() === w.toLowerCase())) next.push(w);
    if (next.length !== values.length) onChange(next);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault();
      add();
    }
  };
  const offered = suggestions.filter((s) => !values.some((v) => v.toLowerCase() === s.toLowerCase()));
  return (
    <div className="labels-input">
      <label htmlFor={`${id}-input`}>{label}</label>
      {values.length > 0 && (
        <TagGroup aria-label={t`${label}: chosen`} className="tag-group" onRemove={(keys) => onChange(values.filter((v) => !keys.has(v)))}>
          <TagList items={values.map((v) => ({ id: v }))} className="chips">
            {({ id: word }) => (
              <Tag id={word} textValue={word} className="chip removable">
                {word}
                <Button slot="remove" aria-label={t`Remove ${word} from ${label}`} className="chip-remove">
                  ×
                </Button>
              </Tag>
            )}
          </TagList>
        </TagGroup>
      )}
      <div className="inline">
        <input
          id={`${id}-input`}
          value={text}
          maxLength={200}
          autoComplete="off"
          list={`${id}-suggestions`}
          placeholder={t`Add…`}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          onBlur={() => text.trim() !== '' && add()}
        />
        <datalist id={`${id}-suggestions`}>
          {offered.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
        <button type="button" onClick={add} disabled={text.trim() === ''}>
          <Trans>
            Add<span className="visually-hidden"> to {label}</span>
          </Trans>
        </button>
      </div>
    </div>
  );
}
