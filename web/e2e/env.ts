/** What the global setup hands to the tests (through the environment the workers inherit). */
export const E2E_ENV = {
  url: 'COLOPHON_E2E_URL',
  libraryDir: 'COLOPHON_E2E_LIBRARY_DIR',
  libraryRoot: 'COLOPHON_E2E_LIBRARY_ROOT',
  dataDir: 'COLOPHON_E2E_DATA_DIR',
} as const;
