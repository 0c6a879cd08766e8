import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { notFoundTitle } from './not-found';

describe('notFoundTitle', () => {
  it('names what is missing for a 404 or an id that is not one', () => {
    expect(notFoundTitle(new ApiError(404, 'not_found', 'Book not found'), '/books/0b6c1f9e-4f7e-4a55-9d0c-0d0d0d0d0d0d')).toBe(
      'Book not found',
    );
    expect(notFoundTitle(new ApiError(404, 'not_found', 'Series not found'), '/series/x')).toBe('Series not found');
    expect(
      notFoundTitle(new ApiError(400, 'validation_error', 'Invalid request: params field "id": must be a UUID'), '/books/not-an-id/read'),
    ).toBe('Book not found');
    expect(notFoundTitle(new ApiError(404, 'not_found', 'Nope'), '/elsewhere')).toBe('Not found');
  });

  it('leaves other errors to "try again"', () => {
    expect(notFoundTitle(new ApiError(500, 'internal', 'Boom'), '/books/x')).toBeNull();
    expect(notFoundTitle(new ApiError(400, 'validation_error', 'Invalid request: body field "q"'), '/books/x')).toBeNull();
    expect(notFoundTitle(new TypeError('Failed to fetch'), '/books/x')).toBeNull();
  });
});
