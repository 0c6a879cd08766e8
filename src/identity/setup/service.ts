import { conflict } from '../../http/errors.js';
import type { AuthService, LoginResponse, NewAccount } from '../auth/service.js';
import type { UsersRepository } from '../users/repository.js';

/** The settings table's one-time markers (operations/settings fills it in). */
export interface SetupMarkers {
  claimMarker(name: string): Promise<boolean>;
  releaseMarker(name: string): Promise<void>;
}

const SETUP_MARKER = 'internal.setup_completed';

export class SetupService {
  private done = false;

  constructor(
    private readonly users: UsersRepository,
    private readonly settings: SetupMarkers,
    private readonly auth: AuthService,
  ) {}

  /** True until the first administrator exists; once false it stays false, so it is cached. */
  async isRequired(): Promise<boolean> {
    if (this.done) return false;
    this.done = (await this.users.countAdmins()) > 0;
    return !this.done;
  }

  /** Creates the first admin; any later call (or a concurrent one that lost the race) is a 409. */
  async initialize(account: NewAccount): Promise<LoginResponse> {
    if (!(await this.isRequired())) throw conflict('Setup has already been completed');
    if (!(await this.settings.claimMarker(SETUP_MARKER))) throw conflict('Setup has already been completed');
    try {
      const admin = await this.auth.createAccount(account, 'admin', [], true);
      this.done = true;
      return await this.auth.issueFor(admin);
    } catch (err) {
      await this.settings.releaseMarker(SETUP_MARKER);
      throw err;
    }
  }
}
