import type { Caller } from '../identity/index.js';
import type { LibraryResponse, LibraryView } from './schemas.js';

/**
 * A library as `caller` may see it: the folder it lives in on the server is for those who manage libraries
 * (`libraries-write`); a reader learns nothing of the server's layout.
 */
export function libraryFor(caller: Caller, library: LibraryView): LibraryResponse {
  if (caller.permissions.has('libraries-write')) return library;
  const { path: _path, ...shown } = library;
  return shown;
}
