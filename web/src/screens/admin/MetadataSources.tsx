import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDate } from '../../lib/format';

type Provider = components['schemas']['MetadataProvider'];
type Update = components['schemas']['MetadataProviderUpdate'];
type MediaType = Provider['media_types'][number];

const MEDIA: ReadonlyArray<[MediaType, string]> = [
  ['manga', 'Manga'],
  ['comics', 'Comics'],
  ['books', 'Books'],
];

const time = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** Administration → Metadata sources: each online database, off until turned on, with its key, limits and a test. */
export function MetadataSourcesScreen() {
  const providers = useQuery({
    queryKey: queryKeys.metadataProviders,
    queryFn: () => ok(api.GET('/api/v1/metadata/providers')),
  });
  return (
    <section aria-labelledby="sources-heading">
      <div className="section-head">
        <h2 id="sources-heading">Metadata sources</h2>
      </div>
      <p className="hint">
        Online databases that fill in what the files leave out: titles, summaries, authors, genres, age ratings. Nothing is sent to a source
        until it is turned on here, and then only titles, years, ISBNs and the first author's name.
      </p>
      <ErrorMessage error={providers.error} />
      {providers.isPending && <p role="status">Loading the sources…</p>}
      <ul className="stack sources">
        {providers.data?.data.map((p) => (
          <SourceCard key={p.name} provider={p} />
        ))}
      </ul>
      <AddHttpSource />
    </section>
  );
}

function SourceCard({ provider: p }: { provider: Provider }) {
  const queryClient = useQueryClient();
  const [key, setKey] = useState('');
  const save = useMutation({
    mutationFn: (body: Update) => ok(api.PUT('/api/v1/metadata/providers/{name}', { params: { path: { name: p.name } }, body })),
    onSuccess: async () => {
      setKey('');
      await queryClient.invalidateQueries({ queryKey: queryKeys.metadataProviders });
    },
  });
  const test = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/metadata/providers/{name}/test', { params: { path: { name: p.name } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.metadataProviders }),
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/metadata/providers/{name}', { params: { path: { name: p.name } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.metadataProviders }),
  });
  const headingId = `source-${p.name}`;
  const toggleMedia = (m: MediaType, on: boolean) => {
    const next = on ? [...new Set([...p.media_types, m])] : p.media_types.filter((x) => x !== m);
    if (next.length > 0) save.mutate({ media_types: next });
  };
  return (
    <li className="card stack" aria-labelledby={headingId}>
      <div className="section-head">
        <h3 id={headingId}>
          {p.label} {p.kind === 'http' && <span className="hint">(HTTP provider)</span>}
        </h3>
        <label className="check">
          <input
            type="checkbox"
            checked={p.enabled}
            disabled={save.isPending}
            onChange={(e) => save.mutate({ enabled: e.target.checked })}
          />
          Turned on
        </label>
      </div>
      <p className="meta-line">
        {p.base_url} · {p.rate.requests_per_second} requests a second
        {p.quota && ` · ${p.quota.used} of ${p.quota.requests} requests used this ${p.quota.window_hours === 1 ? 'hour' : 'day'}`}
      </p>
      {p.paused_until && (
        <p className="error-text" role="status">
          Paused until {time(p.paused_until)} ({formatDate(p.paused_until)}): nothing is sent before then.
        </p>
      )}
      {p.last_problem && (
        <p className="error-text" role="status">
          Last problem: {p.last_problem}
        </p>
      )}
      <fieldset className="inline">
        <legend>Asked about</legend>
        {MEDIA.map(([m, label]) => (
          <label key={m} className="check">
            <input type="checkbox" checked={p.media_types.includes(m)} onChange={(e) => toggleMedia(m, e.target.checked)} />
            {label}
          </label>
        ))}
      </fieldset>
      <label>
        Priority (lower is asked first){' '}
        <input
          type="number"
          min={0}
          max={10000}
          defaultValue={p.priority}
          onBlur={(e) => Number(e.target.value) !== p.priority && save.mutate({ priority: Number(e.target.value) })}
        />
      </label>
      {(p.needs_key || p.kind === 'http') && (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            if (key.trim()) save.mutate({ key: key.trim() });
          }}
        >
          <label className="grow">
            {p.needs_key ? 'API key' : 'Key (optional)'} — {p.key_set ? 'set' : 'not set'}
            <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} placeholder={p.key_hint ?? ''} />
          </label>
          <button type="submit" disabled={!key.trim() || save.isPending}>
            Save key
          </button>
          {p.key_set && (
            <button type="button" onClick={() => save.mutate({ key: null, enabled: p.needs_key ? false : p.enabled })}>
              Remove key
            </button>
          )}
        </form>
      )}
      {p.key_hint && <span className="hint">{p.key_hint}</span>}
      <div className="inline">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          Test connection
        </button>
        {p.kind === 'http' && (
          <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending}>
            Remove source
          </button>
        )}
        <a href={p.limits_doc} target="_blank" rel="noreferrer noopener">
          Its limits
        </a>
      </div>
      {test.isPending && <p role="status">Testing…</p>}
      {test.data && (
        <p role="status" className={test.data.ok ? 'hint' : 'error-text'}>
          {test.data.ok ? '✓ ' : ''}
          {test.data.message}
        </p>
      )}
      <ErrorMessage error={save.error ?? test.error ?? remove.error} />
    </li>
  );
}

/** Adds a source answering the HTTP provider contract (docs/metadata-sources.md). */
function AddHttpSource() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [header, setHeader] = useState('');
  const add = useMutation({
    mutationFn: () =>
      ok(
        api.PUT('/api/v1/metadata/providers/{name}', {
          params: { path: { name: name.trim() } },
          body: { base_url: url.trim(), header_name: header.trim() || null },
        }),
      ),
    onSuccess: async () => {
      setName('');
      setUrl('');
      setHeader('');
      await queryClient.invalidateQueries({ queryKey: queryKeys.metadataProviders });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="add-source-heading">
      <h3 id="add-source-heading">Add an HTTP source</h3>
      <p className="hint">
        Any service answering the HTTP provider contract (two JSON requests, described in the API reference and docs/metadata-sources.md).
        It is added turned off.
      </p>
      <label>
        Name (lower-case letters, digits and -)
        <input required pattern="[a-z][a-z0-9-]{1,39}" value={name} onChange={(e) => setName(e.target.value)} placeholder="my-source" />
      </label>
      <label>
        Address
        <input required type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://metadata.example.org" />
      </label>
      <label>
        Header the key is sent in (optional)
        <input value={header} onChange={(e) => setHeader(e.target.value)} placeholder="X-Api-Key" />
      </label>
      <ErrorMessage error={add.error} />
      <div className="inline">
        <button type="submit" className="primary" disabled={add.isPending}>
          Add source
        </button>
      </div>
    </form>
  );
}
