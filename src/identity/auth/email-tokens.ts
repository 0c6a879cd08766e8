import { createHash, randomBytes } from 'node:crypto';
import { nowIso } from '../../db/ids.js';
import type { EmailTokensRepository } from './email-tokens-repository.js';

const LIFETIME_MS = 24 * 60 * 60 * 1000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Random single-use tokens, stored hashed, valid for 24 hours. */
export class EmailTokens {
  constructor(private readonly repo: EmailTokensRepository) {}

  async create(userId: string, purpose: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.repo.insert({
      tokenHash: hashToken(token),
      userId,
      purpose,
      expiresAt: new Date(Date.now() + LIFETIME_MS).toISOString(),
      createdAt: nowIso(),
    });
    return token;
  }

  /** Marks the token used and returns its user, or undefined when unknown, used or expired. */
  async consume(token: string, purpose: string): Promise<string | undefined> {
    return this.repo.consume(hashToken(token), purpose, nowIso());
  }
}
