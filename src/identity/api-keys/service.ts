import { forbidden, notFound } from '../../http/errors.js';
import { newId, nowIso } from '../../db/ids.js';
import type { PageRequest } from '../../http/pagination.js';
import type { Caller } from '../access/caller.js';
import { PRESETS, sortPermissions, type Permission, type PresetName } from '../access/permissions.js';
import { generateApiKey } from '../auth/api-key-format.js';
import type { ApiKeyRow, ApiKeysRepository } from './repository.js';
import { parseJsonColumnOrThrow, toJsonColumn } from '../../db/json-column.js';

export interface ApiKeyView {
  id: string;
  name: string;
  key_prefix: string;
  permissions: Permission[];
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface ApiKeyInput {
  name: string;
  permissions?: Permission[];
  preset?: PresetName;
  expires_at?: string | null;
}

export function toApiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    permissions: sortPermissions(parseJsonColumnOrThrow<Permission[]>(row.permissions)),
    expires_at: row.expires_at,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}

export class ApiKeysService {
  constructor(private readonly keys: ApiKeysRepository) {}

  async list(caller: Caller, page: PageRequest): Promise<{ items: ApiKeyView[]; total: number }> {
    const { rows, total } = await this.keys.listOwned(caller.user.id, page.offset, page.pageSize);
    return { items: rows.map(toApiKeyView), total };
  }

  async get(caller: Caller, id: string): Promise<ApiKeyView> {
    return toApiKeyView(await this.require(caller, id));
  }

  /** Rules 2, 4, 5: never more than the creator holds; all of it when omitted; the key is shown only now. */
  async create(caller: Caller, input: ApiKeyInput): Promise<ApiKeyView & { key: string }> {
    const permissions = this.grantable(caller, input.permissions ?? (input.preset ? [...PRESETS[input.preset]] : undefined));
    const generated = generateApiKey();
    const row: ApiKeyRow = {
      id: newId(),
      user_id: caller.user.id,
      name: input.name.trim(),
      key_prefix: generated.prefix,
      secret_hash: generated.secretHash,
      permissions: toJsonColumn(permissions),
      expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
      created_at: nowIso(),
      last_used_at: null,
    };
    await this.keys.insert(row);
    return { ...toApiKeyView(row), key: generated.key };
  }

  async update(caller: Caller, id: string, changes: Partial<ApiKeyInput>): Promise<ApiKeyView> {
    await this.require(caller, id);
    const requested = changes.permissions ?? (changes.preset ? [...PRESETS[changes.preset]] : undefined);
    await this.keys.update(id, {
      ...(changes.name !== undefined ? { name: changes.name.trim() } : {}),
      ...(requested !== undefined ? { permissions: toJsonColumn(this.grantable(caller, requested)) } : {}),
      ...(changes.expires_at !== undefined ? { expires_at: changes.expires_at ? new Date(changes.expires_at).toISOString() : null } : {}),
    });
    return this.get(caller, id);
  }

  /** Revocation deletes the key: it is invalid on the very next request (rule 6). */
  async revoke(caller: Caller, id: string): Promise<void> {
    await this.require(caller, id);
    await this.keys.delete(id);
  }

  private grantable(caller: Caller, requested: readonly Permission[] | undefined): Permission[] {
    if (requested === undefined) return sortPermissions(caller.permissions);
    const missing = requested.filter((p) => !caller.permissions.has(p));
    if (missing.length > 0) {
      throw forbidden(`You cannot grant permissions you do not hold: ${missing.join(', ')}`, { missing_permissions: missing });
    }
    return sortPermissions(new Set(requested));
  }

  private async require(caller: Caller, id: string): Promise<ApiKeyRow> {
    const row = await this.keys.findOwned(caller.user.id, id);
    if (!row) throw notFound('API key');
    return row;
  }
}
