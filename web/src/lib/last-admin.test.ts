import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { explainUserError } from './last-admin';

describe('explainUserError: the last-admin refusal explained', () => {
  it('turns the 409 about the last administrator into what to do instead', () => {
    const text = explainUserError(new ApiError(409, 'Conflict', 'The last administrator cannot be deleted'));
    expect(text).toMatch(/^The last administrator cannot be deleted\. /);
    expect(text).toMatch(/make another user an administrator first/);
  });

  it('leaves other errors to the usual message', () => {
    expect(explainUserError(new ApiError(409, 'Conflict', 'Username is already taken'))).toBeNull();
    expect(explainUserError(new ApiError(403, 'Forbidden', 'The last administrator cannot be deleted'))).toBeNull();
    expect(explainUserError(new Error('network'))).toBeNull();
  });
});
