import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { ErrorMessage } from '../../components/ErrorView';
import { Sentences } from '../book/WhyPanel';

/** "Find a file": why a path under a library is (or is not) one of its books (GET /libraries/{id}/explain). */
export function FindFile({ libraries }: { libraries: readonly { id: string; name: string }[] }) {
  const [libraryId, setLibraryId] = useState('');
  const [path, setPath] = useState('');
  const explain = useMutation({
    mutationFn: (input: { id: string; path: string }) =>
      ok(api.GET('/api/v1/libraries/{id}/explain', { params: { path: { id: input.id }, query: { path: input.path } } })),
  });
  const chosen = libraryId || libraries[0]?.id || '';
  if (libraries.length === 0) return null;
  return (
    <section aria-labelledby="find-file-heading" className="find-file">
      <h3 id="find-file-heading">Find a file</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (chosen && path.trim()) explain.mutate({ id: chosen, path: path.trim() });
        }}
      >
        <label>
          Library{' '}
          <select value={chosen} onChange={(e) => setLibraryId(e.target.value)}>
            {libraries.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          Path <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="Series/Book 01.cbz" />
        </label>{' '}
        <button type="submit" disabled={explain.isPending}>
          Explain
        </button>
      </form>
      <ErrorMessage error={explain.error} />
      {explain.data && (
        <div aria-live="polite">
          <p>
            <strong>{explain.data.path}</strong>: {explain.data.status.replace('_', ' ')}
          </p>
          <Sentences sentences={explain.data.sentences} />
        </div>
      )}
    </section>
  );
}
