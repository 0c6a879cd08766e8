import { Trans, useLingui } from '@lingui/react/macro';
import { useId, useState, type KeyboardEvent } from 'react';
import { Button, Tag, TagGroup, TagList } from 'react-aria-components';
import { labelsFromInput, normalizeLabels } from '../lib/content-access';

/**
 * Sharing labels as removable chips and a field to add more (Enter, a comma or the Add button; "kids, family" adds
 * two). Labels are kept as the server stores them: trimmed, lower-cased, once each. The field is named by `label`;
 * the chips are a list named "`label`: chosen", each removed by its × or the Delete key.
 */
export function LabelsInput({
  label,
  hint,
  values,
  onChange,
  disabled = false,
}: {
  label: string;
  hint?: string;
  values: readonly string[];
  onChange(values: string[]): void;
  disabled?: boolean;
}) {
  const { t } = useLingui();
  const id = useId();
  const [text, setText] = useState('');
  const add = () => {
    const added = labelsFromInput(text);
    setText('');
    if (added.length === 0) return;
    const next = normalizeLabels([...values, ...added]);
    if (next.length !== values.length) onChange(next);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    // Enter adds the label here instead of submitting the form around it.
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault();
      add();
    }
  };
  return (
    <div className="labels-input">
      <label htmlFor={`${id}-input`}>{label}</label>
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {values.length > 0 && (
        <TagGroup
          aria-label={t`${label}: chosen`}
          className="tag-group"
          onRemove={disabled ? undefined : (keys) => onChange(values.filter((v) => !keys.has(v)))}
        >
          <TagList items={values.map((v) => ({ id: v }))} className="chips">
            {({ id: chip }) => (
              <Tag id={chip} textValue={chip} className="chip removable">
                {chip}
                {!disabled && (
                  <Button slot="remove" aria-label={t`Remove ${chip} from ${label}`} className="chip-remove">
                    ×
                  </Button>
                )}
              </Tag>
            )}
          </TagList>
        </TagGroup>
      )}
      <div className="inline">
        <input
          id={`${id}-input`}
          value={text}
          maxLength={100}
          autoComplete="off"
          disabled={disabled}
          aria-describedby={hint ? `${id}-hint` : undefined}
          placeholder={t`Add a label…`}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          // A label typed and left is added rather than lost.
          onBlur={() => text.trim() !== '' && add()}
        />
        <button type="button" className="small" disabled={disabled || text.trim() === ''} onClick={add}>
          <Trans>
            Add<span className="visually-hidden"> to {label}</span>
          </Trans>
        </button>
      </div>
    </div>
  );
}
