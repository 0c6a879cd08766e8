/**
 * Administration → Inbox's cached queries: folders, the review queue (by tab after it), template previews. Kept here,
 * not in api/query-keys.ts, so they weigh on the inbox's chunk only; the live updates name `['inbox']` themselves.
 */
export const inboxKeys = {
  all: ['inbox'] as const,
  folders: ['inbox', 'folders'] as const,
  items: ['inbox', 'items'] as const,
  preview: ['inbox', 'preview'] as const,
};
