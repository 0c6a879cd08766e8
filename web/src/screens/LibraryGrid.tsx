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
import { NOTHING_YOU_CAN_SEE, seesEverything } from '../lib/content-access';
import { buildCondition } from '../lib/filters';
import { plural } from '../lib/format';
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

const SORT_LABELS: Record<string, string> = {
  name: 'Name',
  date_added: 'Date added',
  date_updated: 'Date updated',
  release_date: 'Release date',
  date_read: 'Date read',
  book_count: 'Book count',
  file_size: 'File size',
  page_count: 'Page count',
  title: 'Title',
  number: 'Number',
  created_at: 'Date added',
  modified_at: 'File modified',
};
const FIELD_LABELS: Record<FilterField, string> = {
  genre: 'Genre',
  tag: 'Tag',
  status: 'Status',
  publisher: 'Publisher',
  language: 'Language',
};
const READ_LABELS: Record<ReadStatus, string> = { unread: 'Unread', in_progress: 'In progress', read: 'Read' };

type Item = Series | Book;
interface PageResult {
  data: Item[];
  total: number;
}

/** The series (or books) of one library or of all, as a virtualised cover grid driven by the URL. */
export function LibraryGrid() {
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
  const selectedLabel = search.view === 'books' ? plural(selectedIds.length, 'book') : plural(selectedIds.length, 'series', 'series');

  const title = libraryId ? (library?.name ?? 'Library') : 'All libraries';
  const filtersOn = hasFilters(search) || search.q !== '' || hideRead;

  // An address naming a library that is not (or no longer) there: said so, not shown as an empty library.
  if (libraryId && libraries.data && !library) {
    return (
      <div className="page narrow" role="alert">
        <h1>Library not found</h1>
        <p>There is no library at this address: it may have been removed, or the link is wrong.</p>
        <p>
          <Link to="/libraries">See all libraries</Link>
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
          Select
        </ToggleButton>
      </div>
      <Toolbar search={search} update={update} />
      <ActiveFilters search={search} update={update} />
      <FilterForm search={search} update={update} suggestions={first.data?.data ?? []} />
      <p className="hint" aria-live="polite">
        {first.isFetching && !first.data
          ? 'Loading…'
          : first.data
            ? plural(total, search.view === 'books' ? 'book' : 'series', search.view === 'books' ? 'books' : 'series')
            : ''}
      </p>
      {hideRead && (
        <p className="hint hidden-read">
          Books you have read are hidden (Account → Preferences).{' '}
          <button type="button" className="link-button" onClick={() => setShowReadHere(true)}>
            Show them
          </button>
        </p>
      )}
      <ErrorMessage error={first.error} />
      {first.data && total === 0 && (
        <p className="empty">
          {filtersOn
            ? 'Nothing matches these filters. Remove a filter chip or change the search.'
            : !seesAll
              ? // The server lists only what this account may see: an empty grid may be all of it hidden.
                `${NOTHING_YOU_CAN_SEE}${canScan ? ' A library that holds nothing yet can be scanned from Administration → Libraries.' : ''}`
              : libraryId
                ? 'This library has no series yet. Scan it from Administration → Libraries, or check that its folder holds comics or books.'
                : 'No series yet. Add a library and scan it from Administration → Libraries.'}
        </p>
      )}
      <div
        ref={gridRef}
        className="virtual-grid"
        style={{ height: virtualizer.getTotalSize() }}
        role="list"
        aria-label={`${title}: ${search.view}`}
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
            Some {search.view === 'books' ? 'books' : 'series'} could not be loaded: {describeError(failedPages[0]!.error)}
          </span>
          <button type="button" className="small" onClick={() => failedPages.forEach((q) => void q.refetch())}>
            Try again
          </button>
        </div>
      )}
      {selection.active && (
        <SelectionBar count={selectedIds.length} label={`Selected ${search.view}`} onClear={selection.clear}>
          {search.view === 'books' ? (
            <AddToReadList bookIds={selectedIds} title={selectedLabel} />
          ) : (
            <AddToCollection seriesIds={selectedIds} title={selectedLabel} />
          )}
          {canEdit && (
            <button type="button" className="small" onClick={() => setBulkOpen(true)}>
              Edit selected…
            </button>
          )}
          {canEdit && search.view === 'books' && (
            <button type="button" className="small" onClick={openRenumber}>
              Renumber…
            </button>
          )}
          {canEdit && search.view !== 'books' && (
            <button type="button" className="small" onClick={() => setIdentifyIds(selectedIds)}>
              Identify…
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
      Library
      <select
        value={current ?? ''}
        onChange={(e) =>
          void (e.target.value
            ? navigate({ to: '/libraries/$libraryId', params: { libraryId: e.target.value } })
            : navigate({ to: '/libraries' }))
        }
      >
        <option value="">All libraries</option>
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
      <div className="segmented" role="group" aria-label="Show">
        {(['series', 'books'] as const).map((view) => (
          <ToggleButton
            key={view}
            isSelected={search.view === view}
            onChange={() => update({ view, sort: view === 'books' ? DEFAULT_BOOK_SORT : DEFAULT_SERIES_SORT })}
            className="toggle"
          >
            {view === 'series' ? 'Series' : 'Books'}
          </ToggleButton>
        ))}
      </div>
      <label className="inline-label grow">
        <span className="visually-hidden">Search in this view</span>
        <input type="search" placeholder={`Search ${search.view}…`} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <label className="inline-label">
        Sort by
        <select value={field} onChange={(e) => update({ sort: `${e.target.value},${direction}` })}>
          {fields.map((f) => (
            <option key={f} value={f}>
              {SORT_LABELS[f] ?? f}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        onClick={() => update({ sort: `${field},${direction === 'asc' ? 'desc' : 'asc'}` })}
        aria-label={direction === 'asc' ? 'Ascending: switch to descending' : 'Descending: switch to ascending'}
      >
        {direction === 'asc' ? '↑ Ascending' : '↓ Descending'}
      </button>
    </div>
  );
}

function ActiveFilters({ search, update }: { search: LibrarySearch; update(change: Partial<LibrarySearch>): void }) {
  const fields = search.view === 'books' ? BOOK_FILTER_FIELDS : FILTER_FIELDS;
  const chips = [
    ...fields.flatMap((f) => search[f].map((value) => ({ id: `${f}:${value}`, label: `${FIELD_LABELS[f]}: ${value}` }))),
    ...search.read.map((r) => ({ id: `read:${r}`, label: READ_LABELS[r] })),
  ];
  return (
    <div className="filters-row">
      <div className="segmented" role="group" aria-label="Read status">
        {READ_STATUSES.map((r) => (
          <ToggleButton
            key={r}
            className="toggle"
            isSelected={search.read.includes(r)}
            onChange={(on) => update({ read: on ? [...search.read, r] : search.read.filter((x) => x !== r) })}
          >
            {READ_LABELS[r]}
          </ToggleButton>
        ))}
      </div>
      {chips.length > 1 && (
        <label className="inline-label">
          Match
          <select value={search.match} onChange={(e) => update({ match: e.target.value === 'any' ? 'any' : 'all' })}>
            <option value="all">all filters</option>
            <option value="any">any filter</option>
          </select>
        </label>
      )}
      {chips.length > 0 && (
        <TagGroup
          aria-label="Active filters"
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
            {(chip) => (
              <Tag id={chip.id} textValue={chip.label} className="chip removable">
                {chip.label}
                <Button slot="remove" aria-label={`Remove filter ${chip.label}`} className="chip-remove">
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
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const v = value.trim();
    if (!v || search[current].includes(v)) return;
    update({ [current]: [...search[current], v] });
    setValue('');
  };
  return (
    <form className="filter-form" onSubmit={submit} aria-label="Add a filter">
      <label className="inline-label">
        Filter by
        <select value={current} onChange={(e) => setField(e.target.value as FilterField)}>
          {fields.map((f) => (
            <option key={f} value={f}>
              {FIELD_LABELS[f]}
            </option>
          ))}
        </select>
      </label>
      <label className="inline-label grow">
        <span className="visually-hidden">{FIELD_LABELS[current]} value</span>
        <input list="filter-values" value={value} onChange={(e) => setValue(e.target.value)} placeholder={`${FIELD_LABELS[current]}…`} />
      </label>
      <datalist id="filter-values">
        {options.map((o) => (
          <option key={o} value={o} />
        ))}
      </datalist>
      <button type="submit">Add filter</button>
    </form>
  );
}
