import type { MessageDescriptor } from '@lingui/core';
import { msg, plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDate } from '../../lib/format';

type Provider = components['schemas']['MetadataProvider'];
type Update = components['schemas']['MetadataProviderUpdate'];
type MediaType = Provider['media_types'][number];

const MEDIA: ReadonlyArray<[MediaType, MessageDescriptor]> = [
  ['manga', msg`Manga`],
  ['comics', msg`Comics`],
  ['books', msg`Books`],
];

/** An example of the header a key is sent in (a header name, the same in every language). */
const HEADER_EXAMPLE = 'X-Api-Key';

/** Administration → Metadata sources: each online database, off until turned on, with its key, limits and a test. */
export function MetadataSourcesScreen() {
  const providers = useQuery({
    queryKey: queryKeys.metadataProviders,
    queryFn: () => ok(api.GET('/api/v1/metadata/providers')),
  });
  return (
    <section aria-labelledby="sources-heading">
      <div className="section-head">
        <h2 id="sources-heading">
          <Trans>Metadata sources</Trans>
        </h2>
      </div>
      <p className="hint">
        <Trans>
          Online databases that fill in what the files leave out: titles, summaries, authors, genres, age ratings. Nothing is sent to a
          source until it is turned on here, and then only titles, years, ISBNs and the first author's name.
        </Trans>
      </p>
      <ErrorMessage error={providers.error} />
      {providers.isPending && (
        <p role="status">
          <Trans>Loading the sources…</Trans>
        </p>
      )}
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
  const { t, i18n } = useLingui();
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
  const perSecond = p.rate.requests_per_second;
  const rate = plural(perSecond, { one: `${perSecond} requests a second`, other: `${perSecond} requests a second` });
  let quotaText = '';
  if (p.quota) {
    const { used, requests } = p.quota;
    quotaText =
      p.quota.window_hours === 1
        ? plural(requests, {
            one: `${used} of ${requests} requests used this hour`,
            other: `${used} of ${requests} requests used this hour`,
          })
        : plural(requests, {
            one: `${used} of ${requests} requests used this day`,
            other: `${used} of ${requests} requests used this day`,
          });
  }
  const pausedTime = p.paused_until ? i18n.date(p.paused_until, { hour: '2-digit', minute: '2-digit' }) : '';
  const pausedDate = p.paused_until ? formatDate(p.paused_until) : '';
  const problem = p.last_problem;
  const keyName = p.needs_key ? t`API key` : t`Key (optional)`;
  const keyState = p.key_set ? t({ message: 'set', context: 'API key' }) : t({ message: 'not set', context: 'API key' });
  const toggleMedia = (m: MediaType, on: boolean) => {
    const next = on ? [...new Set([...p.media_types, m])] : p.media_types.filter((x) => x !== m);
    if (next.length > 0) save.mutate({ media_types: next });
  };
  return (
    <li className="card stack" aria-labelledby={headingId}>
      <div className="section-head">
        <h3 id={headingId}>
          {p.label}{' '}
          {p.kind === 'http' && (
            <span className="hint">
              <Trans>(HTTP provider)</Trans>
            </span>
          )}
        </h3>
        <label className="check">
          <input
            type="checkbox"
            checked={p.enabled}
            disabled={save.isPending}
            onChange={(e) => save.mutate({ enabled: e.target.checked })}
          />
          <Trans>Turned on</Trans>
        </label>
      </div>
      <p className="meta-line">
        {p.base_url} · {rate}
        {p.quota && ` · ${quotaText}`}
      </p>
      {p.paused_until && (
        <p className="error-text" role="status">
          <Trans>
            Paused until {pausedTime} ({pausedDate}): nothing is sent before then.
          </Trans>
        </p>
      )}
      {p.last_problem && (
        <p className="error-text" role="status">
          <Trans>Last problem: {problem}</Trans>
        </p>
      )}
      <fieldset className="inline">
        <legend>
          <Trans>Asked about</Trans>
        </legend>
        {MEDIA.map(([m, label]) => (
          <label key={m} className="check">
            <input type="checkbox" checked={p.media_types.includes(m)} onChange={(e) => toggleMedia(m, e.target.checked)} />
            {i18n._(label)}
          </label>
        ))}
      </fieldset>
      <label>
        <Trans>Priority (lower is asked first)</Trans>{' '}
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
            {keyName} — {keyState}
            <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} placeholder={p.key_hint ?? ''} />
          </label>
          <button type="submit" disabled={!key.trim() || save.isPending}>
            <Trans>Save key</Trans>
          </button>
          {p.key_set && (
            <button type="button" onClick={() => save.mutate({ key: null, enabled: p.needs_key ? false : p.enabled })}>
              <Trans>Remove key</Trans>
            </button>
          )}
        </form>
      )}
      {p.key_hint && <span className="hint">{p.key_hint}</span>}
      <div className="inline">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          <Trans>Test connection</Trans>
        </button>
        {p.kind === 'http' && (
          <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending}>
            <Trans>Remove source</Trans>
          </button>
        )}
        <a href={p.limits_doc} target="_blank" rel="noreferrer noopener">
          <Trans>Its limits</Trans>
        </a>
      </div>
      {test.isPending && (
        <p role="status">
          <Trans>Testing…</Trans>
        </p>
      )}
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
      <h3 id="add-source-heading">
        <Trans>Add an HTTP source</Trans>
      </h3>
      <p className="hint">
        <Trans>
          Any service answering the HTTP provider contract (two JSON requests, described in the API reference and docs/metadata-sources.md).
          It is added turned off.
        </Trans>
      </p>
      <label>
        <Trans>Name (lower-case letters, digits and -)</Trans>
        <input required pattern="[a-z][a-z0-9-]{1,39}" value={name} onChange={(e) => setName(e.target.value)} placeholder="my-source" />
      </label>
      <label>
        <Trans>Address</Trans>
        <input required type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://metadata.example.org" />
      </label>
      <label>
        <Trans>Header the key is sent in (optional)</Trans>
        <input value={header} onChange={(e) => setHeader(e.target.value)} placeholder={HEADER_EXAMPLE} />
      </label>
      <ErrorMessage error={add.error} />
      <div className="inline">
        <button type="submit" className="primary" disabled={add.isPending}>
          <Trans>Add source</Trans>
        </button>
      </div>
    </form>
  );
}
