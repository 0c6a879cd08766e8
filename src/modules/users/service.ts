import { AppError, conflict, notFound } from '../../http/errors.js';
import { nowIso } from '../../db/ids.js';
import { toJsonColumn } from '../../db/json-column.js';
import type { PageRequest } from '../../http/pagination.js';
import type { Caller } from '../auth/caller.js';
import { hashPassword } from '../auth/passwords.js';
import { newSecurityStamp } from '../auth/security-stamp.js';
import type { AuthService } from '../auth/service.js';
import { userKey, type UserRow, type UsersRepository } from './repository.js';
import { toUserView, type UserView } from './views.js';

export interface UserInput {
  username: string;
  email: string;
  password: string;
  role: 'admin' | 'maintainer' | 'reader';
  permissions?: string[];
}

export type UserChanges = Partial<UserInput & { disabled: boolean; email_verified: boolean }>;

export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly auth: AuthService,
  ) {}

  async list(page: PageRequest): Promise<{ items: UserView[]; total: number }> {
    const [rows, total] = await Promise.all([this.users.list(page.offset, page.pageSize), this.users.count()]);
    return { items: rows.map(toUserView), total };
  }

  async get(id: string): Promise<UserView> {
    return toUserView(await this.require(id));
  }

  async create(input: UserInput): Promise<UserView> {
    const row = await this.auth.createAccount(input, input.role, input.permissions ?? [], true);
    return toUserView(row);
  }

  async update(_caller: Caller, id: string, changes: UserChanges): Promise<UserView> {
    const user = await this.require(id);
    const username = changes.username ?? user.username;
    const email = changes.email ?? user.email;
    if (changes.username !== undefined || changes.email !== undefined) {
      const clash = await this.users.conflicts(username, email, id);
      if (clash.username) throw new AppError(409, 'Conflict', 'Username is already taken', { field: 'username' });
      if (clash.email) throw new AppError(409, 'Conflict', 'E-mail address is already in use', { field: 'email' });
    }
    const losesAdmin = user.role === 'admin' && ((changes.role !== undefined && changes.role !== 'admin') || changes.disabled === true);
    if (losesAdmin && (await this.users.countAdmins(id)) === 0) throw conflict('The last administrator cannot be demoted or disabled');
    const update: Partial<UserRow> = { updated_at: nowIso() };
    if (changes.username !== undefined) Object.assign(update, { username: username.trim(), username_key: userKey(username) });
    if (changes.email !== undefined) Object.assign(update, { email: email.trim(), email_key: userKey(email) });
    if (changes.password !== undefined) update.password_hash = await hashPassword(changes.password);
    if (changes.role !== undefined) update.role = changes.role;
    if (changes.permissions !== undefined) update.permissions = toJsonColumn(changes.permissions);
    if (changes.disabled !== undefined) update.disabled = changes.disabled ? 1 : 0;
    if (changes.email_verified !== undefined) update.email_verified = changes.email_verified ? 1 : 0;
    if (endsSessions(user, update)) update.security_stamp = newSecurityStamp();
    await this.users.update(id, update);
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    const user = await this.require(id);
    if (user.role === 'admin' && (await this.users.countAdmins(id)) === 0) throw conflict('The last administrator cannot be deleted');
    await this.users.delete(id);
  }

  private async require(id: string): Promise<UserRow> {
    const user = await this.users.findById(id);
    if (!user) throw notFound('User');
    return user;
  }
}

/**
 * A new password, disabling or re-enabling, a new role or new permissions end the user's sessions (a new security
 * stamp): whoever held a session under the old state must authenticate again under the new one.
 */
function endsSessions(user: UserRow, update: Partial<UserRow>): boolean {
  return (
    update.password_hash !== undefined ||
    (update.disabled !== undefined && update.disabled !== user.disabled) ||
    (update.role !== undefined && update.role !== user.role) ||
    (update.permissions !== undefined && update.permissions !== user.permissions)
  );
}
