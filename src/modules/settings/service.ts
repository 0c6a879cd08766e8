import type { Config } from '../../config/schema.js';
import { badRequest } from '../../http/errors.js';
import { SETTINGS, isSettingKey, type SettingKey, type SettingValue } from './registry.js';
import type { SettingsRepository } from './repository.js';

type Listener = (key: SettingKey, value: unknown) => void;

// Settings are read on hot paths (every request for rate limits); other instances' changes show up within this window.
const CACHE_TTL_MS = 5000;

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

  async set(key: string, value: unknown, actorId: string | null): Promise<unknown> {
    if (!isSettingKey(key)) throw badRequest(`Unknown setting "${key}"`);
    const parsed = SETTINGS[key].schema.safeParse(value);
    if (!parsed.success) throw badRequest(`Invalid value for setting "${key}"`, parsed.error.issues.map((i) => ({ field: ['value', ...i.path].join('.'), message: i.message })));
    await this.repo.write(key, parsed.data, actorId);
    this.cache = undefined;
    for (const l of this.listeners) l(key, parsed.data);
    return parsed.data;
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
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
