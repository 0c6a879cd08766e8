import type { MessageDescriptor } from '@lingui/core';
import { msg, plural } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Button, Tag, TagGroup, TagList, ToggleButton } from 'react-aria-components';
import { api, describeError, ok } from '../api/client';
import { librariesQuery, meQuery, usePreference } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { BookCard, CardSkeleton, SeriesCard, type Book, type Series } from '../components/Cards';
import { ErrorMessage } from '../components/ErrorView';
import { nothingYouCanSee, seesEverything } from '../lib/visible-scope';
import { buildCondition } from '../lib/filters';
import { gridLayout, pagesFor } from '../lib/grid-layout';
import {
  BOOK_FILTER_FIELDS,
  BOOK_SORT_FIELDS,
  compactLibrarySearch,
  DEFAULT_BOOK_SORT,
  DEFAULT_SERIES_SORT,
  FILTER_FIELDS,
  hasFilters,
  parseSort,
  READ_STATUSES,
  SERIES_SORT_FIELDS,
  type FilterField,
  type LibrarySearch,
  type ReadStatus,
  validateLibrarySearch,
} from '../lib/library-search';
import { useDebounced } from '../lib/use-debounced';
import { AddToReadList } from './book/AddToReadList';
import { IdentifyDialog } from '../components/metadata/IdentifyDialog';
import { SelectionBar } from './library/SelectionBar';
import { BulkEditDialog } from '../components/metadata/BulkEdit';
import { RenumberDialog } from '../components/metadata/RenumberDialog';
import { useSelection } from './library/use-selection';
import { AddToCollection } from './series/AddToCollection';

const PAGE_SIZE = 100;
const MIN_CARD = 150;
const MIN_CARD_PHONE = 110;
const GAP = 16;
const TEXT_HEIGHT = 64;

const SORT_LABELS: Record<string, MessageDescriptor> = {
  name: msg`Name`,
  date_added: msg`Date added`,
  date_updated: msg`Date updated`,
  release_date: msg`Release date`,
  date_read: msg`Date read`,
  book_count: msg`Book count`,
  file_size: msg`File size`,
  page_count: msg`Page count`,
  title: msg`Title`,
  number: msg`Number`,
  created_at: msg`Date added`,
  modified_at: msg`File modified`,
};
const FIELD_LABELS: Record<FilterField, MessageDescriptor> = {
  genre: msg`Genre`,
  tag: msg`Tag`,
  status: msg({ message: 'Status', context: 'series publication status' }),
  publisher: msg`Publisher`,
  language: msg`Language`,
};
const READ_LABELS: Record<ReadStatus, MessageDescriptor> = {
  unread: msg({ message: 'Unread', context: 'read status' }),
  in_progress: msg({ message: 'In progress', context: 'read status' }),
  read: msg({ message: 'Read', context: 'read status' }),
};

type Item = Series | Book;
interface PageResult {
  data: Item[];
  total: number;
}

/** The series (or books) of one library or of all, as a virtualised cover grid driven by the URL. */
export function LibraryGrid() {
  const { t } = useLingui();
  const params = useParams({ strict: false }) as { libraryId?: string };
  const libraryId = params.libraryId;
  const search = validateLibrarySearch(useSearch({ strict: false }) as Record<string, unknown>);
  const navigate = useNavigate();
  const libraries = useQuery(librariesQuery);
  const library = libraries.data?.data.find((l) => l.id === libraryId);
  const me = useQuery(meQuery);
  const canScan = me.data?.permissions.includes('libraries-write') ?? false;
  const seesAll = seesEverything(me.data);

  const update = (change: Partial<LibrarySearch>, replace = false) =>
    void navigate({
      to: '.',
      search: compactLibrarySearch({ ...search, ...change }) as never,
      replace,
    });

  // Account → Preferences → "Show books already read": unticked, the books view leaves finished books out unless
  // a read-status filter is chosen (a note says so, and shows them on request).
  const showReadPreference = usePreference<boolean>('show_read_books', true);
  const [showReadHere, setShowReadHere] = useState(false);
  const hideRead = search.view === 'books' && showReadPreference === false && !showReadHere && search.read.length === 0;
  const condition = useMemo(
    () => buildCondition(hideRead ? { ...search, read: ['unread', 'in_progress'] } : search, { libraryId }),
    [search, libraryId, hideRead],
  );
  const rank = search.q !== '' && search.sort === (search.view === 'books' ? DEFAULT_BOOK_SORT : DEFAULT_SERIES_SORT);
  const gridKey = { libraryId, order: rank ? 'rank' : search.sort, q: search.q, condition };
  const pageKey = (page: number) =>
    search.view === 'books' ? queryKeys.books.gridPage(gridKey, page) : queryKeys.series.gridPage(gridKey, page);
  const fetchPage = async (page: number): Promise<PageResult> => {
    const query = { page, pageSize: PAGE_SIZE, ...(rank ? {} : { sort: search.sort }) };
    const body = { ...(condition ? { condition } : {}), ...(search.q ? { fullTextSearch: search.q } : {}) };
    return search.view === 'books'
      ? ok(api.POST('/api/v1/books/list', { params: { query }, body }))
      : ok(api.POST('/api/v1/series/list', { params: { query }, body }));
  };

  // The previous results stay up while a new sort or filter loads, but only within one view: series shown as
  // books would link to /books/<series id> and ask for covers that do not exist.
  const firstKey = pageKey(1);
  const first = useQuery({
    queryKey: firstKey,
    queryFn: () => fetchPage(1),
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[0] === firstKey[0] ? previous : undefined),
  });
  const total = first.data?.total ?? 0;

  const gridRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  // Where the grid starts on the page: the window scrolls, the grid's rows are placed from there.
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    const element = gridRef.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      setWidth(entry?.contentRect.width ?? 0);
      setScrollMargin(element.getBoundingClientRect().top + window.scrollY);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const layout = gridLayout(width || 800, width > 0 && width < 500 ? MIN_CARD_PHONE : MIN_CARD, GAP, TEXT_HEIGHT);
  const rows = Math.ceil(total / layout.columns);

  const virtualizer = useWindowVirtualizer({
    count: rows,
    estimateSize: () => layout.rowHeight,
    overscan: 3,
    scrollMargin,
  });
  useEffect(() => virtualizer.measure(), [layout.rowHeight, virtualizer]);
  const virtualRows = virtualizer.getVirtualItems();
  const firstItem = (virtualRows[0]?.index ?? 0) * layout.columns;
  const lastItem = Math.min(total - 1, ((virtualRows.at(-1)?.index ?? 0) + 1) * layout.columns - 1);
  const pages = pagesFor(firstItem, lastItem, PAGE_SIZE).filter((p) => p !== 1);
  const pageQueries = useQueries({ queries: pages.map((page) => ({ queryKey: pageKey(page), queryFn: () => fetchPage(page) })) });
  // A later page that failed for good (after waiting out any rate limit): said in words where the reader is, with
  // a way to ask again, instead of cards that stay grey.
  const failedPages = pageQueries.filter((q) => q.isError && !q.isFetching);
  const itemAt = (index: number): Item | undefined => {
    const page = Math.floor(index / PAGE_SIZE) + 1;
    const result = page === 1 ? first.data : pageQueries[pages.indexOf(page)]?.data;
    return result?.data[index % PAGE_SIZE];
  };

  // Selection mode: the cards select instead of opening. A Shift-click range may reach pages loaded earlier and
  // scrolled away (still in the query cache).
  const queryClient = useQueryClient();
  const idAt = (index: number) =>
    queryClient.getQueryData<PageResult>(pageKey(Math.floor(index / PAGE_SIZE) + 1))?.data[index % PAGE_SIZE]?.id;
  const selection = useSelection(search.view, JSON.stringify(gridKey), idAt);
  const selectedIds = [...selection.ids];
  const [bulkOpen, setBulkOpen] = useState(false);
  const [identifyIds, setIdentifyIds] = useState<string[] | null>(null);
  // "Renumber…": the selected books the grid has loaded, in its order (then the others), taken when it opens.
  const [renumber, setRenumber] = useState<{ ids: string[]; known: Map<string, Book> } | null>(null);
  const openRenumber = () => {
    const known = new Map<string, Book>();
    for (let page = 1; page <= Math.ceil(total / PAGE_SIZE); page += 1)
      for (const item of queryClient.getQueryData<PageResult>(pageKey(page))?.data ?? [])
        if (selection.ids.has(item.id)) known.set(item.id, item as Book);
    setRenumber({ ids: [...known.keys(), ...selectedIds.filter((id) => !known.has(id))], known });
  };
  const canEdit = useQuery(meQuery).data?.permissions.includes(search.view === 'books' ? 'books-write' : 'series-write') === true;
  const selectedCount = selectedIds.length;
  const selectedLabel =
    search.view === 'books'
      ? plural(selectedCount, { one: `${selectedCount} book`, other: `${selectedCount} books` })
      : plural(selectedCount, { one: `${selectedCount} series`, other: `${selectedCount} series` });

  const title = libraryId ? (library?.name ?? t`Library`) : t`All libraries`;
  const filtersOn = hasFilters(search) || search.q !== '' || hideRead;
  const emptyText = filtersOn
    ? t`Nothing matches these filters. Remove a filter chip or change the search.`
    : !seesAll
      ? // The server lists only what this account may see: an empty grid may be all of it hidden.
        canScan
        ? `${nothingYouCanSee()} ${t`A library that holds nothing yet can be scanned from Administration → Libraries.`}`
        : nothingYouCanSee()
      : libraryId
        ? t`This library has no series yet. Scan it from Administration → Libraries, or check that its folder holds comics or books.`
        : t`No series yet. Add a library and scan it from Administration → Libraries.`;
  const failure = failedPages[0] ? describeError(failedPages[0].error) : '';

  // An address naming a library that is not (or no longer) there: said so, not shown as an empty library.
  if (libraryId && libraries.data && !library) {
    return (
      <div className="page narrow" role="alert">
        <h1>
          <Trans>Library not found</Trans>
        </h1>
        <p>
          <Trans>There is no library at this address: it may have been removed, or the link is wrong.</Trans>
        </p>
        <p>
          <Link to="/libraries">
            <Trans>See all libraries</Trans>
          </Link>
        </p>
      </div>
    );
  }

  return (
    <div className="page">
      <div className="grid-head">
        <h1>{title}</h1>
        <LibraryPicker current={libraryId} />
        <ToggleButton className="toggle select-toggle" isSelected={selection.active} onChange={selection.setActive}>
          <Trans context="verb">Select</Trans>
        </ToggleButton>
      </div>
      <Toolbar search={search} update={update} />
      <ActiveFilters search={search} update={update} />
      <FilterForm search={search} update={update} suggestions={first.data?.data ?? []} />
      <p className="hint" aria-live="polite">
        {first.isFetching && !first.data ? (
          <Trans>Loading…</Trans>
        ) : first.data ? (
          search.view === 'books' ? (
            <Plural value={total} one={`${total} book`} other={`${total} books`} />
          ) : (
            <Plural value={total} one={`${total} series`} other={`${total} series`} />
          )
        ) : (
          ''
        )}
      </p>
      {hideRead && (
        <p className="hint hidden-read">
          <Trans>
            Books you have read are hidden (Account → Preferences).{' '}
            <button type="button" className="link-button" onClick={() => setShowReadHere(true)}>
              Show them
            </button>
          </Trans>
        </p>
      )}
      <ErrorMessage error={first.error} />
      {first.data && total === 0 && <p className="empty">{emptyText}</p>}
      <div
        ref={gridRef}
        className="virtual-grid"
        style={{ height: virtualizer.getTotalSize() }}
        role="list"
        aria-label={search.view === 'books' ? t`${title}: books` : t`${title}: series`}
      >
        {virtualRows.map((row) => (
          <div
            key={row.key}
            className="virtual-row"
            style={{
              transform: `translateY(${row.start - scrollMargin}px)`,
              // minmax(0, …): a long title must not widen its column; every row's covers are the same width.
              gridTemplateColumns: `repeat(${layout.columns}, minmax(0, 1fr))`,
              height: layout.rowHeight - GAP,
            }}
          >
            {Array.from({ length: layout.columns }, (_, c) => {
              const index = row.index * layout.columns + c;
              if (index >= total) return null;
              const item = itemAt(index);
              const select =
                selection.active && item
                  ? { selected: selection.ids.has(item.id), onSelect: (shift: boolean) => selection.select(item.id, index, shift) }
                  : undefined;
              return (
                <div key={index} role="listitem">
                  {!item ? (
                    <CardSkeleton />
                  ) : search.view === 'books' ? (
                    <BookCard book={item as Book} select={select} />
                  ) : (
                    <SeriesCard series={item as Series} select={select} />
                  )}
                </div>
              );
            })}
          </div>
        ))}
      </div>
      {failedPages.length > 0 && (
        <div className="grid-error" role="alert">
          <span className="error-text">
            {search.view === 'books' ? (
              <Trans>Some books could not be loaded: {failure}</Trans>
            ) : (
              <Trans>Some series could not be loaded: {failure}</Trans>
            )}
          </span>
          <button type="button" className="small" onClick={() => failedPages.forEach((q) => void q.refetch())}>
            <Trans>Try again</Trans>
          </button>
        </div>
      )}
      {selection.active && (
        <SelectionBar
          count={selectedCount}
          label={search.view === 'books' ? t`Selected books` : t`Selected series`}
          onClear={selection.clear}
        >
          {search.view === 'books' ? (
            <AddToReadList bookIds={selectedIds} title={selectedLabel} />
          ) : (
            <AddToCollection seriesIds={selectedIds} title={selectedLabel} />
          )}
          {canEdit && (
            <button type="button" className="small" onClick={() => setBulkOpen(true)}>
              <Trans>Edit selected…</Trans>
            </button>
          )}
          {canEdit && search.view === 'books' && (
            <button type="button" className="small" onClick={openRenumber}>
              <Trans>Renumber…</Trans>
            </button>
          )}
          {canEdit && search.view !== 'books' && (
            <button type="button" className="small" onClick={() => setIdentifyIds(selectedIds)}>
              <Trans>Identify…</Trans>
            </button>
          )}
        </SelectionBar>
      )}
      {bulkOpen && selectedIds.length > 0 && (
        <BulkEditDialog
          kind={search.view === 'books' ? 'books' : 'series'}
          ids={selectedIds}
          title={selectedLabel}
          onClose={() => setBulkOpen(false)}
        />
      )}
      {identifyIds && identifyIds.length > 0 && <IdentifyDialog seriesIds={identifyIds} onClose={() => setIdentifyIds(null)} />}
      {renumber && <RenumberDialog ids={renumber.ids} known={renumber.known} onClose={() => setRenumber(null)} />}
    </div>
  );
}

function LibraryPicker({ current }: { current?: string }) {
  const navigate = useNavigate();
  const libraries = useQuery(librariesQuery);
  if (!libraries.data || libraries.data.data.length < 2) return null;
  return (
    <label className="inline-label">
      <Trans>Library</Trans>
      <select
        value={current ?? ''}
        onChange={(e) =>
          void (e.target.value
            ? navigate({ to: '/libraries/$libraryId', params: { libraryId: e.target.value } })
            : navigate({ to: '/libraries' }))
        }
      >
        <option value="">
          <Trans>All libraries</Trans>
        </option>
        {libraries.data.data.map((l) => (
          <option key={l.id} value={l.id}>
            {l.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Toolbar({ search, update }: { search: LibrarySearch; update(change: Partial<LibrarySearch>, replace?: boolean): void }) {
  const { t, i18n } = useLingui();
  const [text, setText] = useState(search.q);
  const settled = useDebounced(text, 300);
  const latest = useRef({ update, q: search.q, settled });
  useEffect(() => {
    latest.current.update = update;
    latest.current.q = search.q;
  });
  useEffect(() => {
    const before = latest.current.settled;
    latest.current.settled = settled;
    if (settled === before || settled === latest.current.q) return;
    // A new search is a step back can undo; refining it as you type replaces that step.
    latest.current.update({ q: settled }, before !== '' && settled !== '');
  }, [settled]);
  // Back/forward or a link changed the URL's search: the box follows (state adjusted while rendering).
  const [shownQ, setShownQ] = useState(search.q);
  if (shownQ !== search.q) {
    setShownQ(search.q);
    if (text.trim() !== search.q.trim()) setText(search.q);
  }

  const fields = search.view === 'books' ? BOOK_SORT_FIELDS : SERIES_SORT_FIELDS;
  const { field, direction } = parseSort(search.sort, fields, search.view === 'books' ? DEFAULT_BOOK_SORT : DEFAULT_SERIES_SORT);
  return (
    <div className="toolbar">
      <div className="segmented" role="group" aria-label={t`Show`}>
        {(['series', 'books'] as const).map((view) => (
          <ToggleButton
            key={view}
            isSelected={search.view === view}
            onChange={() => update({ view, sort: view === 'books' ? DEFAULT_BOOK_SORT : DEFAULT_SERIES_SORT })}
            className="toggle"
          >
            {view === 'series' ? <Trans>Series</Trans> : <Trans>Books</Trans>}
          </ToggleButton>
        ))}
      </div>
      <label className="inline-label grow">
        <span className="visually-hidden">
          <Trans>Search in this view</Trans>
        </span>
        <input
          type="search"
          placeholder={search.view === 'books' ? t`Search books…` : t`Search series…`}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </label>
      <label className="inline-label">
        <Trans>Sort by</Trans>
        <select value={field} onChange={(e) => update({ sort: `${e.target.value},${direction}` })}>
          {fields.map((f) => {
            const label = SORT_LABELS[f];
            return (
              <option key={f} value={f}>
                {label ? i18n._(label) : f}
              </option>
            );
          })}
        </select>
      </label>
      <button
        type="button"
        onClick={() => update({ sort: `${field},${direction === 'asc' ? 'desc' : 'asc'}` })}
        aria-label={direction === 'asc' ? t`Ascending: switch to descending` : t`Descending: switch to ascending`}
      >
        {direction === 'asc' ? <Trans>↑ Ascending</Trans> : <Trans>↓ Descending</Trans>}
      </button>
    </div>
  );
}

function ActiveFilters({ search, update }: { search: LibrarySearch; update(change: Partial<LibrarySearch>): void }) {
  const { t, i18n } = useLingui();
  const fields = search.view === 'books' ? BOOK_FILTER_FIELDS : FILTER_FIELDS;
  const chips = [
    ...fields.flatMap((f) => {
      const field = i18n._(FIELD_LABELS[f]);
      return search[f].map((value) => ({ id: `${f}:${value}`, label: t`${field}: ${value}` }));
    }),
    ...search.read.map((r) => ({ id: `read:${r}`, label: i18n._(READ_LABELS[r]) })),
  ];
  return (
    <div className="filters-row">
      <div className="segmented" role="group" aria-label={t`Read status`}>
        {READ_STATUSES.map((r) => (
          <ToggleButton
            key={r}
            className="toggle"
            isSelected={search.read.includes(r)}
            onChange={(on) => update({ read: on ? [...search.read, r] : search.read.filter((x) => x !== r) })}
          >
            {i18n._(READ_LABELS[r])}
          </ToggleButton>
        ))}
      </div>
      {chips.length > 1 && (
        <label className="inline-label">
          <Trans>Match</Trans>
          <select value={search.match} onChange={(e) => update({ match: e.target.value === 'any' ? 'any' : 'all' })}>
            <option value="all">
              <Trans>all filters</Trans>
            </option>
            <option value="any">
              <Trans>any filter</Trans>
            </option>
          </select>
        </label>
      )}
      {chips.length > 0 && (
        <TagGroup
          aria-label={t`Active filters`}
          onRemove={(keys) => {
            const change: Partial<LibrarySearch> = {};
            for (const key of keys) {
              const [f, ...rest] = String(key).split(':');
              const value = rest.join(':');
              if (f === 'read') change.read = (change.read ?? search.read).filter((x) => x !== value);
              else if ((FILTER_FIELDS as readonly string[]).includes(f ?? '')) {
                const field = f as FilterField;
                change[field] = (change[field] ?? search[field]).filter((x) => x !== value);
              }
            }
            update(change);
          }}
          className="tag-group"
        >
          <TagList items={chips} className="chips">
            {({ id, label }) => (
              <Tag id={id} textValue={label} className="chip removable">
                {label}
                <Button slot="remove" aria-label={t`Remove filter ${label}`} className="chip-remove">
                  ×
                </Button>
              </Tag>
            )}
          </TagList>
        </TagGroup>
      )}
    </div>
  );
}

/** Adds a chip: a field and a value; suggestions come from what the grid shows. */
function FilterForm({
  search,
  update,
  suggestions,
}: {
  search: LibrarySearch;
  update(change: Partial<LibrarySearch>): void;
  suggestions: Item[];
}) {
  const { t, i18n } = useLingui();
  const fields = search.view === 'books' ? BOOK_FILTER_FIELDS : FILTER_FIELDS;
  const [field, setField] = useState<FilterField>('genre');
  const [value, setValue] = useState('');
  const current = (fields as readonly FilterField[]).includes(field) ? field : 'genre';
  const options = useMemo(() => {
    const values = new Set<string>();
    for (const item of suggestions) {
      const m = item.metadata as {
        genres?: string[];
        tags?: string[];
        status?: string | null;
        publisher?: string | null;
        language?: string | null;
      };
      const add = (v: string | null | undefined) => v && values.add(v);
      if (current === 'genre') m.genres?.forEach(add);
      if (current === 'tag') m.tags?.forEach(add);
      if (current === 'status') add(m.status);
      if (current === 'publisher') add(m.publisher);
      if (current === 'language') add(m.language);
    }
    return [...values].sort();
  }, [suggestions, current]);
  const currentLabel = i18n._(FIELD_LABELS[current]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const v = value.trim();
    if (!v || search[current].includes(v)) return;
    update({ [current]: [...search[current], v] });
    setValue('');
  };
  return (
    <form className="filter-form" onSubmit={submit} aria-label={t`Add a filter`}>
      <label className="inline-label">
        <Trans>Filter by</Trans>
        <select value={current} onChange={(e) => setField(e.target.value as FilterField)}>
          {fields.map((f) => (
            <option key={f} value={f}>
              {i18n._(FIELD_LABELS[f])}
            </option>
          ))}
        </select>
      </label>
      <label className="inline-label grow">
        <span className="visually-hidden">
          <Trans>{currentLabel} value</Trans>
        </span>
        <input list="filter-values" value={value} onChange={(e) => setValue(e.target.value)} placeholder={t`${currentLabel}…`} />
      </label>
      <datalist id="filter-values">
        {options.map((o) => (
          <option key={o} value={o} />
        ))}
      </datalist>
      <button type="submit">
        <Trans>Add filter</Trans>
      </button>
    </form>
  );
}
