import { badRequest } from '../../http/errors.js';
import type { Caller } from '../access/caller.js';
import { PREFERENCES } from './registry.js';
import type { PreferencesRepository } from './repository.js';

export interface PreferenceView {
  key: string;
  value: unknown;
  default: unknown;
  is_default: boolean;
  description: string;
  updated_at: string | null;
}

export class PreferencesService {
  constructor(private readonly repo: PreferencesRepository) {}

  async list(caller: Caller): Promise<PreferenceView[]> {
    const stored = await this.repo.all(caller.user.id);
    return Object.keys(PREFERENCES).map((key) => this.view(key, stored.get(key)));
  }

  async set(caller: Caller, key: string, value: unknown): Promise<PreferenceView> {
    const def = this.definition(key);
    const parsed = def.schema.safeParse(value);
    if (!parsed.success)
      throw badRequest(
        `Invalid value for preference "${key}": ${parsed.error.issues[0]?.message ?? 'invalid'}`,
        parsed.error.issues.map((i) => ({ field: ['value', ...i.path].join('.'), message: i.message })),
      );
    await this.repo.set(caller.user.id, key, parsed.data);
    return this.view(key, (await this.repo.all(caller.user.id)).get(key));
  }

  async reset(caller: Caller, key: string): Promise<PreferenceView> {
    this.definition(key);
    await this.repo.remove(caller.user.id, key);
    return this.view(key, undefined);
  }

  private definition(key: string) {
    const def = Object.hasOwn(PREFERENCES, key) ? PREFERENCES[key] : undefined;
    if (!def) throw badRequest(`Unknown preference "${key}"`, { known_keys: Object.keys(PREFERENCES) });
    return def;
  }

  private view(key: string, stored: { value: unknown; updated_at: string } | undefined): PreferenceView {
    const def = this.definition(key);
    return {
      key,
      value: stored ? stored.value : def.default,
      default: def.default,
      is_default: !stored,
      description: def.description,
      updated_at: stored?.updated_at ?? null,
    };
  }
}
