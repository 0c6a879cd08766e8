import type { AccessSummary } from '../access/summary-repository.js';
import { scopeOf, scopeOfUser, type ContentScope } from '../access/scope.js';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.js';
import { accessFrom, contentAccessColumn, FULL_ACCESS, parseContentAccess, type AccessView } from '../access/content-access.js';
import { nowIso } from '../../db/ids.js';
import { toJsonColumn } from '../../db/json-column.js';
import type { PageRequest } from '../../http/pagination.js';
import type { Caller } from '../access/caller.js';
import { hashPassword } from '../auth/passwords.js';
import { newSecurityStamp } from '../auth/security-stamp.js';
import type { AuthService } from '../auth/service.js';
import { userKey, type UserRow, type UsersRepository } from './repository.js';
import { toUserView, type UserView } from './views.js';

export interface UserInput extends Partial<AccessView> {
  username: string;
  email: string;
  password: string;
  role: 'admin' | 'maintainer' | 'reader';
  permissions?: string[];
}

export type UserChanges = Partial<UserInput & { disabled: boolean; email_verified: boolean }>;

/** The library ids among these that exist (the others are refused). */
export type AccessSummaries = (scope: ContentScope) => Promise<AccessSummary>;

export type KnownLibraries = (ids: readonly string[]) => Promise<ReadonlySet<string>>;

export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly auth: AuthService,
    private readonly knownLibraries: KnownLibraries,
    private readonly summaries: AccessSummaries,
  ) {}

  /** What a user sees of the catalog now (admins: everything). */
  async accessSummary(id: string): Promise<AccessSummary> {
    return this.summaries(scopeOfUser(await this.require(id)));
  }

  /** What a reader with this access would see: the administration screen's preview while the form is edited. */
  async accessPreview(input: Partial<AccessView>): Promise<AccessSummary> {
    await this.checkLibraries(input);
    return this.summaries(scopeOf(accessFrom(input)));
  }

  async list(page: PageRequest): Promise<{ items: UserView[]; total: number }> {
    const [rows, total] = await Promise.all([this.users.list(page.offset, page.pageSize), this.users.count()]);
    return { items: rows.map(toUserView), total };
  }

  async get(id: string): Promise<UserView> {
    return toUserView(await this.require(id));
  }

  async create(input: UserInput): Promise<UserView> {
    const given = ACCESS_KEYS.some((k) => input[k] !== undefined);
    if (given) await this.checkLibraries(input);
    const access = given
      ? accessFrom(input, input.library_access === undefined ? await this.auth.newAccountAccess() : FULL_ACCESS)
      : undefined;
    const row = await this.auth.createAccount(input, input.role, input.permissions ?? [], true, access);
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
    if (ACCESS_KEYS.some((k) => changes[k] !== undefined)) {
      await this.checkLibraries(changes);
      update.content_access = contentAccessColumn(accessFrom(changes, parseContentAccess(user.content_access)));
    }
    if (endsSessions(user, update)) update.security_stamp = newSecurityStamp();
    await this.users.update(id, update);
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    const user = await this.require(id);
    if (user.role === 'admin' && (await this.users.countAdmins(id)) === 0) throw conflict('The last administrator cannot be deleted');
    await this.users.delete(id);
  }

  private async checkLibraries(input: Partial<AccessView>): Promise<void> {
    const access = input.library_access;
    if (!access || access.all) return;
    const known = await this.knownLibraries(access.library_ids);
    const unknown = access.library_ids.filter((id) => !known.has(id));
    if (unknown.length > 0)
      throw badRequest(`No library has the id ${unknown.join(', ')}`, { field: 'library_access', library_ids: unknown });
  }

  private async require(id: string): Promise<UserRow> {
    const user = await this.users.findById(id);
    if (!user) throw notFound('User');
    return user;
  }
}

const ACCESS_KEYS = ['library_access', 'age_restriction', 'labels_allow', 'labels_exclude'] as const;

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
