import type { MessageDescriptor } from '@lingui/core';
import { msg, plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, ok, type components, type paths } from '../../../api/client';
import { inboxKeys } from './keys';
import { librariesQuery, meQuery } from '../../../api/queries';
import { ErrorMessage } from '../../../components/ErrorView';
import { InboxFolders } from './InboxFolders';
import { InboxUpload } from './InboxUpload';

type Item = components['schemas']['InboxItem'];
type Status = Item['status'];
type Changes = NonNullable<paths['/api/v1/inbox/items/{id}']['patch']['requestBody']>['content']['application/json'];

const WAITING: Status[] = ['analysing', 'review', 'duplicate', 'clash', 'damaged', 'filing', 'failed'];

const TABS: ReadonlyArray<[string, MessageDescriptor, Status[]]> = [
  ['waiting', msg`To review`, WAITING],
  ['filed', msg`Filed`, ['filed']],
  ['rejected', msg`Rejected`, ['rejected']],
];

const STATUS_TEXT: Record<Status, MessageDescriptor> = {
  analysing: msg`Being looked at…`,
  review: msg`Ready to file`,
  duplicate: msg`Duplicate`,
  clash: msg`Name taken`,
  damaged: msg`Cannot be read`,
  filing: msg`Being filed…`,
  failed: msg`Filing failed`,
  filed: msg`Filed`,
  rejected: msg`Rejected`,
};

/**
 * The inbox: new books dropped in a watched folder or uploaded here, each with the series, name and place proposed
 * for it and why; a person fixes what is wrong, then files (or rejects) one or many.
 */
export function InboxScreen() {
  const { t, i18n } = useLingui();
  const queryClient = useQueryClient();
  const me = useQuery(meQuery);
  const [tab, setTab] = useState('waiting');
  const statuses = TABS.find(([key]) => key === tab)?.[2] ?? WAITING;
  const items = useQuery({
    queryKey: [...inboxKeys.items, tab],
    queryFn: () => ok(api.GET('/api/v1/inbox/items', { params: { query: { status: statuses.join(','), pageSize: 500 } } })),
    placeholderData: keepPreviousData,
    // Filing ends with a scan: the book's link comes a moment later.
    refetchInterval: (q) =>
      q.state.data?.data.some((i) => i.status === 'analysing' || i.status === 'filing' || (i.status === 'filed' && !i.book_id))
        ? 1500
        : false,
  });
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const refresh = () => queryClient.invalidateQueries({ queryKey: inboxKeys.all });
  const acceptMany = useMutation({
    mutationFn: (ids: string[]) => ok(api.POST('/api/v1/inbox/items/accept', { body: { ids } })),
    onSuccess: () => {
      setSelected(new Set());
      return refresh();
    },
  });
  const data = items.data?.data ?? [];
  const ready = data.filter((i) => i.status === 'review');
  const chosen = ready.filter((i) => selected.has(i.id));
  const failures = acceptMany.data?.data.filter((r) => r.error) ?? [];
  const canManage = me.data?.permissions.includes('libraries-write') ?? false;
  const chosenCount = chosen.length;

  return (
    <section aria-labelledby="inbox-heading" className="stack inbox">
      <div className="section-head">
        <h2 id="inbox-heading">
          <Trans>Inbox</Trans>
        </h2>
      </div>
      <p className="hint">
        <Trans>
          New books dropped in an inbox folder or uploaded here wait for you: check the series, number and name proposed for each, then file
          them into their library. Nothing here shows in the library, the feeds or the apps until it is filed.
        </Trans>
      </p>
      <InboxUpload onUploaded={() => void refresh()} />
      <h3>
        <Trans>Review</Trans>
      </h3>
      <nav aria-label={t`Inbox status`} className="section-tabs">
        {TABS.map(([key, label]) => (
          <button key={key} type="button" aria-pressed={tab === key} onClick={() => setTab(key)}>
            {i18n._(label)}
          </button>
        ))}
      </nav>
      <ErrorMessage error={items.error ?? acceptMany.error} />
      {failures.length > 0 && (
        <div className="error-text" role="alert">
          <ul>
            {failures.map((f) => (
              <li key={f.id}>{f.error?.message}</li>
            ))}
          </ul>
        </div>
      )}
      {items.isPending && (
        <p role="status">
          <Trans>Loading the inbox…</Trans>
        </p>
      )}
      {items.data && data.length === 0 && (
        <p className="empty" role="status">
          {tab === 'waiting' ? (
            <Trans>Nothing waiting. Upload books above, or copy them into an inbox folder: they appear here once they are complete.</Trans>
          ) : (
            <Trans>Nothing here.</Trans>
          )}
        </p>
      )}
      {tab === 'waiting' && ready.length > 0 && (
        <div className="inline">
          <label className="check">
            <input
              type="checkbox"
              checked={chosen.length === ready.length}
              onChange={(e) => setSelected(new Set(e.target.checked ? ready.map((i) => i.id) : []))}
            />
            <Trans>Select every book ready to file</Trans>
          </label>
          <button
            type="button"
            className="primary"
            disabled={chosen.length === 0 || acceptMany.isPending}
            onClick={() => acceptMany.mutate(chosen.map((i) => i.id))}
          >
            {plural(chosenCount, { one: 'File the selected book', other: 'File the # selected books' })}
          </button>
        </div>
      )}
      <ol className="inbox-list" aria-label={t`Books in the inbox`}>
        {data.map((item) => (
          <InboxRow
            key={item.id}
            item={item}
            selected={selected.has(item.id)}
            onSelect={(on) =>
              setSelected((before) => {
                const next = new Set(before);
                if (on) next.add(item.id);
                else next.delete(item.id);
                return next;
              })
            }
            onChanged={() => void refresh()}
            statusText={i18n._(STATUS_TEXT[item.status])}
          />
        ))}
      </ol>
      {canManage && <InboxFolders />}
    </section>
  );
}

function InboxRow({
  item,
  selected,
  onSelect,
  onChanged,
  statusText,
}: {
  item: Item;
  selected: boolean;
  onSelect(on: boolean): void;
  onChanged(): void;
  statusText: string;
}) {
  const { t } = useLingui();
  const libraries = useQuery(librariesQuery);
  const [series, setSeries] = useState(item.proposed_series ?? '');
  const [number, setNumber] = useState(item.number ?? '');
  const [name, setName] = useState(item.proposed_path ?? '');
  const change = useMutation({
    mutationFn: (body: Changes) => ok(api.PATCH('/api/v1/inbox/items/{id}', { params: { path: { id: item.id } }, body })),
    onSuccess: (updated) => {
      setSeries(updated.proposed_series ?? '');
      setNumber(updated.number ?? '');
      setName(updated.proposed_path ?? '');
      onChanged();
    },
  });
  const accept = useMutation({
    mutationFn: (duplicate?: 'keep_both' | 'replace') =>
      ok(api.POST('/api/v1/inbox/items/{id}/accept', { params: { path: { id: item.id } }, body: duplicate ? { duplicate } : {} })),
    onSuccess: onChanged,
    onError: onChanged,
  });
  const reject = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/inbox/items/{id}/reject', { params: { path: { id: item.id } } })),
    onSuccess: onChanged,
  });
  const waiting = !['filed', 'rejected', 'filing', 'analysing'].includes(item.status);
  const editable = waiting && item.status !== 'damaged';
  const seriesChanged = series.trim() !== (item.proposed_series ?? '') || number.trim() !== (item.number ?? '');
  const nameChanged = name.trim() !== (item.proposed_path ?? '');
  const library = libraries.data?.data.find((l) => l.id === item.library_id)?.name ?? '';
  const fileName = item.file_name;
  const busy = change.isPending || accept.isPending || reject.isPending;
  const save = () =>
    change.mutate(
      nameChanged && !seriesChanged
        ? { proposed_path: name.trim() }
        : { series_name: series.trim(), number: number.trim() === '' ? null : number.trim() },
    );

  return (
    <li className="card inbox-row stack" aria-label={t`${fileName}: ${statusText}`}>
      <div className="inline">
        {item.status === 'review' && (
          <input type="checkbox" checked={selected} onChange={(e) => onSelect(e.target.checked)} aria-label={t`Select ${fileName}`} />
        )}
        <strong className="mono">{item.file_name}</strong>
        <span className={`inbox-status status-${item.status}`}>{statusText}</span>
        {library && (
          <span className="hint">
            <Trans>into {library}</Trans>
          </span>
        )}
      </div>
      {editable ? (
        <div className="inbox-fields">
          <label>
            <Trans>Series</Trans>
            <input value={series} onChange={(e) => setSeries(e.target.value)} maxLength={500} />
          </label>
          <label>
            <Trans>Number</Trans>
            <input value={number} onChange={(e) => setNumber(e.target.value)} maxLength={20} inputMode="decimal" className="narrow-input" />
          </label>
          <label className="wide">
            <Trans>Name in the library</Trans>
            <input value={name} onChange={(e) => setName(e.target.value)} className="mono" spellCheck={false} maxLength={4096} />
          </label>
          {(seriesChanged || nameChanged) && (
            <button type="button" disabled={busy} onClick={save}>
              <Trans>Save changes</Trans>
            </button>
          )}
        </div>
      ) : (
        item.proposed_path && <span className="mono">{item.filed_path ?? item.proposed_path}</span>
      )}
      {item.series_id === null && editable && item.proposed_series && (
        <span className="hint">
          <Trans>A new series will be made.</Trans>
        </span>
      )}
      {item.problem && <p className="error-text">{item.problem}</p>}
      <details>
        <summary>
          <Trans>Why this proposal</Trans>
        </summary>
        <ul>
          {item.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      </details>
      <ErrorMessage error={change.error ?? accept.error ?? reject.error} />
      <div className="inline">
        {(item.status === 'review' || item.status === 'failed') && (
          <button
            type="button"
            className="primary"
            disabled={busy || seriesChanged || nameChanged}
            onClick={() => accept.mutate(undefined)}
          >
            {item.status === 'failed' ? <Trans>Try filing again</Trans> : <Trans>File it</Trans>}
          </button>
        )}
        {item.status === 'duplicate' && (
          <>
            <button type="button" disabled={busy} onClick={() => accept.mutate('keep_both')}>
              <Trans>Keep both</Trans>
            </button>
            <button type="button" disabled={busy} onClick={() => accept.mutate('replace')}>
              <Trans>Replace the older one</Trans>
            </button>
          </>
        )}
        {waiting && (
          <button type="button" disabled={busy} onClick={() => reject.mutate()}>
            <Trans>Reject</Trans>
          </button>
        )}
        {item.status === 'filed' &&
          (item.book_id ? (
            <Link to="/books/$bookId" params={{ bookId: item.book_id }}>
              <Trans>Open the book</Trans>
            </Link>
          ) : (
            <span role="status">
              <Trans>Adding it to the library…</Trans>
            </span>
          ))}
      </div>
    </li>
  );
}
