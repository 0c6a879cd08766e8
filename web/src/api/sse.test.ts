import { describe, expect, it } from 'vitest';
import { staleKeysFor } from './live';
import { parseEventStream } from './sse';

describe('parseEventStream', () => {
  it('reads named events with JSON data, skips keep-alive comments, and keeps an unfinished tail', () => {
    const chunk = ': keep-alive\n\nevent: series_created\ndata: {"type":"series_created","series_id":"s1"}\n\nevent: book_upd';
    const { events, rest } = parseEventStream(chunk);
    expect(events).toEqual([{ name: 'series_created', data: { type: 'series_created', series_id: 's1' } }]);
    expect(rest).toBe('event: book_upd');
    const next = parseEventStream(`${rest}ated\ndata: {"book_id":"b1"}\n\n`);
    expect(next.events).toEqual([{ name: 'book_updated', data: { book_id: 'b1' } }]);
    expect(next.rest).toBe('');
  });

  it('accepts CRLF line ends and multi-line data', () => {
    const { events } = parseEventStream('event: note\r\ndata: line 1\r\ndata: line 2\r\n\r\n');
    expect(events).toEqual([{ name: 'note', data: 'line 1\nline 2' }]);
  });
});

describe('staleKeysFor: which cached lists an entity event invalidates', () => {
  it('refreshes series and shelves for series events, and the series counts for book events', () => {
    expect(staleKeysFor('series_created')).toEqual(expect.arrayContaining([['series'], ['shelves']]));
    expect(staleKeysFor('book_deleted')).toEqual(expect.arrayContaining([['books'], ['series'], ['shelves']]));
    expect(staleKeysFor('library_updated')).toEqual(expect.arrayContaining([['libraries']]));
    expect(staleKeysFor('cover_updated')).toEqual([['covers']]);
    expect(staleKeysFor('something_else')).toEqual([]);
  });
});
