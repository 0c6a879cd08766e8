import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { ErrorMessage } from '../../components/ErrorView';
import { Sentences } from '../book/WhyPanel';

type Status = components['schemas']['Explanation']['status'];

/** What the server found at the path, in words (the API's `status`, its underscore a space). */
const STATUS_WORDS: Record<Status, MessageDescriptor> = {
  book: msg({ message: 'book', context: 'file status' }),
  deleted: msg({ message: 'deleted', context: 'file status' }),
  hidden: msg({ message: 'hidden', context: 'file status' }),
  excluded: msg({ message: 'excluded', context: 'file status' }),
  unsupported: msg({ message: 'unsupported', context: 'file status' }),
  waiting: msg({ message: 'waiting', context: 'file status' }),
  not_scanned: msg({ message: 'not scanned', context: 'file status' }),
  missing: msg({ message: 'missing', context: 'file status' }),
  folder: msg({ message: 'folder', context: 'file status' }),
  outside: msg({ message: 'outside', context: 'file status' }),
};

/** "Find a file": why a path under a library is (or is not) one of its books (GET /libraries/{id}/explain). */
export function FindFile({ libraries }: { libraries: readonly { id: string; name: string }[] }) {
  const { t, i18n } = useLingui();
  const [libraryId, setLibraryId] = useState('');
  const [path, setPath] = useState('');
  const explain = useMutation({
    mutationFn: (input: { id: string; path: string }) =>
      ok(api.GET('/api/v1/libraries/{id}/explain', { params: { path: { id: input.id }, query: { path: input.path } } })),
  });
  const chosen = libraryId || libraries[0]?.id || '';
  if (libraries.length === 0) return null;
  const status = explain.data?.status;
  const statusWords = status ? (STATUS_WORDS[status] ? i18n._(STATUS_WORDS[status]) : status.replace('_', ' ')) : '';
  return (
    <section aria-labelledby="find-file-heading" className="find-file">
      <h3 id="find-file-heading">
        <Trans>Find a file</Trans>
      </h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (chosen && path.trim()) explain.mutate({ id: chosen, path: path.trim() });
        }}
      >
        <label>
          <Trans>Library</Trans>{' '}
          <select value={chosen} onChange={(e) => setLibraryId(e.target.value)}>
            {libraries.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          <Trans>Path</Trans> <input value={path} onChange={(e) => setPath(e.target.value)} placeholder={t`Series/Book 01.cbz`} />
        </label>{' '}
        <button type="submit" disabled={explain.isPending}>
          <Trans>Explain</Trans>
        </button>
      </form>
      <ErrorMessage error={explain.error} />
      {explain.data && (
        <div aria-live="polite">
          <p>
            <strong>{explain.data.path}</strong>: {statusWords}
          </p>
          <Sentences sentences={explain.data.sentences} />
        </div>
      )}
    </section>
  );
}
