/**
 * Duplicate groups found by the duplicate scan. A group is a tracking record only: deleting it never touches
 * books or series, and the next scan recreates it (same key) while the duplicates still exist.
 */
export interface DuplicateGroupsTable {
  id: string;
  /** `book` or `series`. */
  kind: string;
  /** `hash` (books), `external_id` or `title` (series). */
  match_type: string;
  /** The SHA-256, the external id, or `<library id>:<normalised title>`. Unique per kind. */
  match_key: string;
  /** For title groups: the one library they are in. */
  library_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface DuplicateMembersTable {
  group_id: string;
  /** A book id or a series id, by the group's kind. */
  member_id: string;
}

export interface DuplicateTables {
  duplicate_groups: DuplicateGroupsTable;
  duplicate_members: DuplicateMembersTable;
}
