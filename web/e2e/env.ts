/** What the global setup hands to the tests (through the environment the workers inherit). */
export const E2E_ENV = {
  url: 'BINDERY_E2E_URL',
  libraryDir: 'BINDERY_E2E_LIBRARY_DIR',
  libraryRoot: 'BINDERY_E2E_LIBRARY_ROOT',
  dataDir: 'BINDERY_E2E_DATA_DIR',
} as const;
