import { notFound } from '../../http/errors.js';
import type { PageRequest } from '../../http/pagination.js';
import type { Caller } from '../../identity/index.js';
import type { DeviceRow, DevicesRepository } from './repository.js';
import type { DeviceRename, DeviceView } from './schemas.js';

function view(row: DeviceRow): DeviceView {
  return {
    id: row.device_id,
    kind: row.kind,
    name: row.label ?? row.name,
    detected_name: row.name,
    renamed: row.label !== null,
    api_key:
      row.kind === 'api_key' && row.api_key_name !== null ? { id: row.device_id.slice('key:'.length), name: row.api_key_name } : null,
    client_device_id: row.client_device_id,
    client_name: row.client_name,
    user_agent: row.user_agent,
    last_protocol: row.last_protocol,
    first_seen_at: row.first_seen_at,
    last_sync_at: row.last_seen_at,
  };
}

/**
 * The caller's devices: every device that wrote a position (by its API key, its own X-Device-Id, else its
 * User-Agent; see progress/device.ts), with what it said about itself and its last sync. A device can be renamed
 * (the name the statistics show too) and removed: removing forgets it (its reading statistics stay in the totals);
 * a device that syncs again appears again, so an API-key device is stopped by revoking its key.
 */
export class DevicesService {
  constructor(private readonly repo: DevicesRepository) {}

  async list(caller: Caller, page: PageRequest): Promise<{ total: number; data: DeviceView[] }> {
    const { total, rows } = await this.repo.list(caller.user.id, page.offset, page.pageSize);
    return { total, data: rows.map(view) };
  }

  async rename(caller: Caller, deviceId: string, input: DeviceRename): Promise<DeviceView> {
    await this.require(caller, deviceId);
    await this.repo.rename(caller.user.id, deviceId, input.name);
    return view(await this.require(caller, deviceId));
  }

  async remove(caller: Caller, deviceId: string): Promise<void> {
    if (!(await this.repo.remove(caller.user.id, deviceId))) throw notFound('Device', { id: deviceId });
  }

  private async require(caller: Caller, deviceId: string): Promise<DeviceRow> {
    const row = await this.repo.get(caller.user.id, deviceId);
    if (!row) throw notFound('Device', { id: deviceId });
    return row;
  }
}
