import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, overlayPathFor } from '../../src/config/load.js';
import { ensureDataDir } from '../../src/data-dir.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function writeConfig(yaml: string, overlay?: string): string {
  const dir = makeTempDir('colophon-config-');
  const file = path.join(dir, 'colophon.yaml');
  writeFileSync(file, yaml);
  if (overlay !== undefined) writeFileSync(path.join(dir, 'colophon.local.yaml'), overlay);
  return file;
}

describe('configuration defaults', () => {
  it('serves on port 8080 with SQLite under ./data and no config file', () => {
    const config = loadConfig({ env: {} });
    expect(config.server.port).toBe(8080);
    expect(config.data_dir).toBe('./data');
    expect(config.database.type).toBe('sqlite');
    expect(config.auth.jwt_expiry_seconds).toBe(86400);
    expect(config.api).toEqual({ enable_api_docs: false, api_docs_path: '/docs' });
    expect(config.komga_api).toEqual({ enabled: false, prefix: 'komga' });
    expect(config.rate_limit.anonymous).toEqual({ requests_per_second: 10, burst: 50 });
    expect(config.rate_limit.authenticated).toEqual({ requests_per_second: 50, burst: 200 });
  });
});

describe('configuration precedence: defaults < file < local overlay < environment', () => {
  it('file overrides defaults', () => {
    const file = writeConfig('server:\n  port: 9001\n');
    expect(loadConfig({ file, env: {} }).server.port).toBe(9001);
  });

  it('the overlay next to the file overrides the file', () => {
    const file = writeConfig('server:\n  port: 9001\n  host: 127.0.0.1\n', 'server:\n  port: 9002\n');
    const config = loadConfig({ file, env: {} });
    expect(config.server.port).toBe(9002);
    expect(config.server.host).toBe('127.0.0.1');
    expect(overlayPathFor(file)).toBe(path.join(path.dirname(file), 'colophon.local.yaml'));
  });

  it('COLOPHON_* environment overrides the overlay, with __ between levels and YAML scalars', () => {
    const file = writeConfig('server:\n  port: 9001\n', 'server:\n  port: 9002\n');
    const config = loadConfig({
      file,
      env: {
        COLOPHON_SERVER__PORT: '9000',
        COLOPHON_API__ENABLE_API_DOCS: 'true',
        COLOPHON_DATABASE__PASSWORD: '123456',
        COLOPHON_DATA_DIR: '/srv/colophon',
      },
    });
    expect(config.server.port).toBe(9000);
    expect(config.api.enable_api_docs).toBe(true);
    expect(config.database.password).toBe('123456');
    expect(config.data_dir).toBe('/srv/colophon');
  });

  it('COLOPHON_CONFIG names the file when --config is absent', () => {
    const file = writeConfig('komga_api:\n  enabled: true\n');
    expect(loadConfig({ env: { COLOPHON_CONFIG: file } }).komga_api.enabled).toBe(true);
  });
});

describe('values are taken literally and never interpolated', () => {
  it('keeps ${HOME} in a file value and in an environment value', () => {
    const file = writeConfig('database:\n  password: "${HOME}"\ndata_dir: "${HOME}/x"\n');
    const fromFile = loadConfig({ file, env: { HOME: '/root' } });
    expect(fromFile.database.password).toBe('${HOME}');
    expect(fromFile.data_dir).toBe('${HOME}/x');
    const fromEnv = loadConfig({ env: { COLOPHON_DATABASE__PASSWORD: '${HOME}', HOME: '/root' } });
    expect(fromEnv.database.password).toBe('${HOME}');
  });
});

describe('an invalid configuration stops startup with a message naming the key', () => {
  const messageOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('unknown key', () => {
    const file = writeConfig('server:\n  prot: 80\n');
    expect(messageOf(() => loadConfig({ file, env: {} }))).toContain('"server.prot": unknown key');
  });

  it('wrong type, naming where it came from', () => {
    const file = writeConfig('server:\n  port: eighty\n');
    const message = messageOf(() => loadConfig({ file, env: {} }));
    expect(message).toContain('"server.port"');
    expect(message).toContain(file);
    expect(messageOf(() => loadConfig({ env: { COLOPHON_DATABASE__TYPE: 'mysql' } }))).toMatch(/"database.type".*COLOPHON_DATABASE__TYPE/);
  });

  it('unknown key from the environment', () => {
    expect(messageOf(() => loadConfig({ env: { COLOPHON_SERVER__PROT: '1' } }))).toContain('"server.prot": unknown key');
  });

  it('missing config file and invalid YAML', () => {
    expect(messageOf(() => loadConfig({ file: '/nonexistent/colophon.yaml', env: {} }))).toContain('cannot read config file');
    const file = writeConfig('server: [unclosed\n');
    expect(messageOf(() => loadConfig({ file, env: {} }))).toContain('not valid YAML');
  });

  it('a data_dir that cannot be created', () => {
    const dir = makeTempDir();
    const blocker = path.join(dir, 'a-file');
    writeFileSync(blocker, 'x');
    const config = loadConfig({ env: { COLOPHON_DATA_DIR: path.join(blocker, 'data') } });
    expect(messageOf(() => ensureDataDir(config))).toContain('"data_dir"');
  });

  it('a relative data_dir is created under the working directory', () => {
    const dir = makeTempDir();
    mkdirSync(path.join(dir, 'sub'));
    const config = loadConfig({ env: { COLOPHON_DATA_DIR: path.join(dir, 'sub', 'data') } });
    expect(ensureDataDir(config)).toBe(path.join(dir, 'sub', 'data'));
  });
});

describe('colophon.example.yaml documents a valid configuration', () => {
  it('loads without error and equals the defaults', () => {
    expect(loadConfig({ file: path.resolve('colophon.example.yaml'), env: {} })).toEqual(loadConfig({ env: {} }));
  });
});
