import { describe, expect, it } from 'vitest';
import { ApiError, describeError, isNetworkError } from './client';

describe('describeError', () => {
  it('says the server cannot be reached when a request got no answer, in every browser', () => {
    for (const message of ['Failed to fetch', 'NetworkError when attempting to fetch resource.', 'Load failed']) {
      expect(isNetworkError(new TypeError(message))).toBe(true);
      expect(describeError(new TypeError(message))).toMatch(/^Can't reach the server/);
    }
  });

  it("keeps the API's words and other errors' own", () => {
    expect(describeError(new ApiError(404, 'not_found', 'Book not found'))).toBe('Book not found');
    expect(describeError(new TypeError('x is not a function'))).toBe('x is not a function');
    expect(isNetworkError(new Error('Failed to fetch'))).toBe(false);
  });
});
