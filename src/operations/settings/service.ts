import type { Config } from '../../config/schema.js';
import { badRequest, notFound } from '../../http/errors.js';
import type { PageRequest } from '../../http/pagination.js';
import { SETTINGS, isSettingKey, type SettingKey, type SettingValue } from './registry.js';
import type { SettingsRepository } from './repository.js';
import { parseJsonColumnOrThrow } from '../../db/json-column.js';

type Listener = (key: SettingKey, value: unknown) => void;

export interface SettingView {
  key: string;
  value: unknown;
  default: unknown;
  is_default: boolean;
  description: string;
  updated_at: string | null;
  updated_by: string | null;
}

export interface SettingChange {
  id: string;
  key: string;
  old_value: unknown;
  new_value: unknown;
  changed_by: { id: string; username: string | null } | null;
  changed_at: string;
}

// Settings are read on hot paths (every request for rate limits); other instances' changes show up within this window.
const CACHE_TTL_MS = 5000;

const decode = (text: string | null): unknown => (text === null ? null : parseJsonColumnOrThrow<unknown>(text));

export class SettingsService {
  private cache: { values: Map<string, unknown>; at: number } | undefined;
  private readonly listeners: Listener[] = [];

  constructor(
    private readonly repo: SettingsRepository,
    private readonly config: Config,
  ) {}

  defaultOf<K extends SettingKey>(key: K): SettingValue<K> {
    return SETTINGS[key].defaultFrom(this.config) as SettingValue<K>;
  }

  async get<K extends SettingKey>(key: K): Promise<SettingValue<K>> {
    const values = await this.values();
    return (values.has(key) ? values.get(key) : this.defaultOf(key)) as SettingValue<K>;
  }

  /** Synchronous read for hot paths: the cached value, or the default before the first load. */
  peek<K extends SettingKey>(key: K): SettingValue<K> {
    if (!this.cache || Date.now() - this.cache.at > CACHE_TTL_MS) void this.values().catch(() => undefined);
    const values = this.cache?.values;
    return (values?.has(key) ? values.get(key) : this.defaultOf(key)) as SettingValue<K>;
  }

  async list(): Promise<SettingView[]> {
    const stored = new Map((await this.repo.all()).map((s) => [s.key, s]));
    return (Object.keys(SETTINGS) as SettingKey[]).map((key) => this.view(key, stored.get(key)));
  }

  async describe(key: string): Promise<SettingView> {
    const known = this.requireKey(key);
    return this.view(known, await this.repo.find(known));
  }

  async set(key: string, value: unknown, actorId: string | null): Promise<SettingView> {
    const known = this.requireKey(key);
    const parsed = this.validate(known, value);
    await this.repo.write(known, parsed, actorId);
    await this.changed([[known, parsed]]);
    return this.describe(known);
  }

  /** Validates every value first, then applies them in one transaction. */
  async setMany(values: Record<string, unknown>, actorId: string | null): Promise<SettingView[]> {
    const unknown = Object.keys(values).filter((k) => !isSettingKey(k));
    if (unknown.length > 0)
      throw badRequest(unknown.length > 1 ? `Unknown settings: ${unknown.join(', ')}` : `Unknown setting: ${unknown.join(', ')}`, {
        unknown_keys: unknown,
      });
    const entries = Object.entries(values).map(([k, v]): [SettingKey, unknown] => [k as SettingKey, this.validate(k as SettingKey, v)]);
    await this.repo.writeMany(entries, actorId);
    await this.changed(entries);
    return Promise.all(entries.map(([k]) => this.describe(k)));
  }

  async reset(key: string, actorId: string | null): Promise<SettingView> {
    const known = this.requireKey(key);
    await this.repo.write(known, undefined, actorId);
    await this.changed([[known, this.defaultOf(known)]]);
    return this.describe(known);
  }

  async history(key: string, page: PageRequest): Promise<{ items: SettingChange[]; total: number }> {
    const known = this.requireKey(key);
    const { rows, total } = await this.repo.history(known, page.offset, page.pageSize);
    return {
      total,
      items: rows.map((r) => ({
        id: r.id,
        key: r.key,
        old_value: decode(r.old_value),
        new_value: decode(r.new_value),
        changed_by: r.changed_by ? { id: r.changed_by, username: r.username } : null,
        changed_at: r.changed_at,
      })),
    };
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  private view(key: SettingKey, stored: { value: unknown; updated_at: string; updated_by: string | null } | undefined): SettingView {
    const def = this.defaultOf(key);
    return {
      key,
      value: stored ? stored.value : def,
      default: def,
      is_default: !stored,
      description: SETTINGS[key].description,
      updated_at: stored?.updated_at ?? null,
      updated_by: stored?.updated_by ?? null,
    };
  }

  private requireKey(key: string): SettingKey {
    if (!isSettingKey(key)) throw notFound(`Setting "${key}"`);
    return key;
  }

  private validate(key: SettingKey, value: unknown): unknown {
    const parsed = SETTINGS[key].schema.safeParse(value);
    if (!parsed.success) {
      throw badRequest(
        `Invalid value for setting "${key}": ${parsed.error.issues[0]?.message ?? 'invalid'}`,
        parsed.error.issues.map((i) => ({ field: ['value', ...i.path].join('.'), message: i.message })),
      );
    }
    return parsed.data;
  }

  /** Reloads the cache before answering, so this instance applies a change from the very next request. */
  private async changed(entries: Array<[SettingKey, unknown]>): Promise<void> {
    this.cache = undefined;
    await this.values();
    for (const [k, v] of entries) for (const l of this.listeners) l(k, v);
  }

  private async values(): Promise<Map<string, unknown>> {
    if (this.cache && Date.now() - this.cache.at <= CACHE_TTL_MS) return this.cache.values;
    const rows = await this.repo.all();
    const values = new Map<string, unknown>();
    for (const row of rows) if (isSettingKey(row.key)) values.set(row.key, row.value);
    this.cache = { values, at: Date.now() };
    return values;
  }
}
