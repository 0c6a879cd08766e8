import { i18n } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { api, authHeaders, ok, toApiError, type components } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { Cover, coversChanged } from './Cover';
import { ErrorMessage } from './ErrorView';

type CoverView = components['schemas']['Cover'];
export type CoverTarget = { kind: 'series' | 'book'; id: string };
/** A book whose pages may be chosen. */
export interface PickerBook {
  id: string;
  label: string;
  page_count: number;
}

const coverUrl = (t: CoverTarget) =>
  (t.kind === 'series' ? '/api/v1/series/{id}/cover' : '/api/v1/books/{id}/cover') as '/api/v1/series/{id}/cover';
/** Pages shown at first: a cover is nearly always among them; the rest on request. */
const FIRST_PAGES = 12;

/** PUT …/cover with the image as multipart/form-data (the typed client sends JSON only). */
async function uploadCover(target: CoverTarget, file: File): Promise<CoverView> {
  const form = new FormData();
  form.append('file', file);
  const path = `/api/v1/${target.kind === 'series' ? 'series' : 'books'}/${target.id}/cover`;
  const response = await fetch(path, { method: 'PUT', headers: authHeaders(), body: form });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw await toApiError(response, body);
  return body as CoverView;
}

/** What the cover is now, in the active language. */
export function describeCover(cover: CoverView | undefined, books: PickerBook[]): string {
  if (!cover) return '';
  if (cover.source === 'generated') return i18n._(msg`The generated cover (the first page).`);
  if (cover.source === 'upload') return i18n._(msg`An uploaded image.`);
  const page = String(cover.page);
  const label = books.find((b) => b.id === cover.book_id)?.label ?? i18n._(msg`a book`);
  return i18n._(msg`Page ${page} of ${label}.`);
}

/**
 * "Change cover…": a dialog to choose a series' or a book's cover from the pages of its books (as thumbnails), to
 * upload an image (JPEG, PNG or WebP), or to go back to the generated cover. Saved at once; every cover on screen
 * is redrawn.
 */
export function CoverPicker({
  target,
  title,
  books,
  onClose,
}: {
  target: CoverTarget;
  title: string;
  books: PickerBook[];
  onClose(): void;
}) {
  const { t } = useLingui();
  const dialog = useRef<HTMLDialogElement>(null);
  const queryClient = useQueryClient();
  const titleId = useId();
  const fileId = useId();
  const bookSelectId = useId();
  const [bookId, setBookId] = useState(books[0]?.id ?? '');
  const [showAll, setShowAll] = useState(false);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  const key = [target.kind === 'series' ? 'series' : 'books', target.id, 'cover'];
  const current = useQuery({
    queryKey: key,
    queryFn: () => ok(api.GET(coverUrl(target), { params: { path: { id: target.id } } })),
  });
  const done = async (cover: CoverView) => {
    queryClient.setQueryData(key, cover);
    coversChanged();
    await queryClient.invalidateQueries({ queryKey: target.kind === 'series' ? queryKeys.series.all : queryKeys.books.all });
  };
  const pickPage = useMutation({
    mutationFn: (page: number) => ok(api.PUT(coverUrl(target), { params: { path: { id: target.id } }, body: { book_id: bookId, page } })),
    onSuccess: done,
  });
  const upload = useMutation({ mutationFn: (file: File) => uploadCover(target, file), onSuccess: done });
  const generated = useMutation({
    mutationFn: () => ok(api.DELETE(coverUrl(target), { params: { path: { id: target.id } } })),
    onSuccess: done,
  });
  const busy = pickPage.isPending || upload.isPending || generated.isPending;
  const book = books.find((b) => b.id === bookId);
  const count = book ? (showAll ? book.page_count : Math.min(book.page_count, FIRST_PAGES)) : 0;
  const cover = current.data;
  const bookLabel = book?.label;
  const description = describeCover(cover, books);
  const pageCount = book?.page_count ?? 0;
  const chosen = (page: number) => cover?.source === 'page' && cover.book_id === bookId && cover.page === page;

  return (
    <dialog ref={dialog} className="app-dialog cover-picker" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>
        <Trans>Cover of {title}</Trans>
      </h2>
      <p className="hint" role="status">
        {current.isPending ? <Trans>Loading…</Trans> : <Trans>Now: {description}</Trans>}
        {busy && ' '}
        {busy && <Trans>Saving…</Trans>}
      </p>
      <ErrorMessage error={current.error ?? pickPage.error ?? upload.error ?? generated.error} />
      {books.length > 1 && (
        <div className="field">
          <label htmlFor={bookSelectId}>
            <Trans>Pages of</Trans>
          </label>
          <select
            id={bookSelectId}
            value={bookId}
            onChange={(e) => {
              setBookId(e.target.value);
              setShowAll(false);
            }}
          >
            {books.map((b) => (
              <option key={b.id} value={b.id}>
                {b.label}
              </option>
            ))}
          </select>
        </div>
      )}
      {book && book.page_count === 0 && (
        <p className="hint">
          <Trans>This book has no pages to choose from.</Trans>
        </p>
      )}
      <ul className="cover-pages" aria-label={book ? t`Pages of ${bookLabel}` : t`Pages`}>
        {Array.from({ length: count }, (_, i) => i + 1).map((page) => (
          <li key={`${bookId}-${page}`}>
            <button
              type="button"
              className={`cover-page${chosen(page) ? ' chosen' : ''}`}
              aria-pressed={chosen(page)}
              disabled={busy}
              onClick={() => pickPage.mutate(page)}
            >
              <Cover src={`/api/v1/books/${bookId}/pages/${page}?width=160`} alt="" className="cover-page-image" />
              <span>
                <Trans>Page {page}</Trans>
              </span>
            </button>
          </li>
        ))}
      </ul>
      {book && !showAll && book.page_count > FIRST_PAGES && (
        <button type="button" className="link-button" onClick={() => setShowAll(true)}>
          <Plural value={pageCount} one="Show all # page" other="Show all # pages" />
        </button>
      )}
      <div className="field">
        <label htmlFor={fileId}>
          <Trans>Upload an image (JPEG, PNG or WebP, up to 10 MB)</Trans>
        </label>
        <input
          id={fileId}
          type="file"
          accept="image/jpeg,image/png,image/webp"
          disabled={busy}
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) upload.mutate(file);
            e.target.value = '';
          }}
        />
      </div>
      <div className="actions">
        <button type="button" onClick={() => generated.mutate()} disabled={busy || cover?.source === 'generated'}>
          <Trans>Use the generated cover</Trans>
        </button>
        <button type="button" className="primary" onClick={() => dialog.current?.close()}>
          <Trans>Done</Trans>
        </button>
      </div>
    </dialog>
  );
}
