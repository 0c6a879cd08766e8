import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { z } from 'zod';
import { ConfigSchema, type Config } from './schema.js';

/** A configuration problem the operator must fix; printed as is, never with a stack trace. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface LoadConfigOptions {
  /** Path of the YAML file (`--config`); falls back to env COLOPHON_CONFIG. */
  file?: string;
  env?: NodeJS.ProcessEnv;
}

type Tree = Record<string, unknown>;

const ENV_PREFIX = 'COLOPHON_';
// Variables that steer the loader or the test suite rather than naming a config key.
const RESERVED_ENV = (name: string) => name === 'COLOPHON_CONFIG' || name.startsWith('COLOPHON_TEST_');

/**
 * Sources, later wins: defaults < YAML file < `<name>.local.yaml` beside it < COLOPHON_* environment.
 * Values are taken literally: nothing like `${HOME}` is ever expanded.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const origins = new Map<string, string>();
  let merged: Tree = {};

  const file = options.file ?? env.COLOPHON_CONFIG;
  if (file) {
    merged = deepMerge(merged, readYamlFile(file, true), file, origins);
    const overlay = overlayPathFor(file);
    if (existsSync(overlay)) merged = deepMerge(merged, readYamlFile(overlay, false), overlay, origins);
  }
  merged = deepMerge(merged, envTree(env, origins), undefined, origins);

  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error.issues, origins));
  return parsed.data;
}

/** `conf/colophon.yaml` -> `conf/colophon.local.yaml`. */
export function overlayPathFor(file: string): string {
  const ext = path.extname(file);
  const base = ext === '.yaml' || ext === '.yml' ? file.slice(0, -ext.length) : file;
  return `${base}.local${ext || '.yaml'}`;
}

function readYamlFile(file: string, required: boolean): Tree {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    if (!required) return {};
    throw new ConfigError(`cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let doc: unknown;
  try {
    doc = YAML.parse(raw, { merge: false });
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isTree(doc)) throw new ConfigError(`config file ${file} must hold a mapping of keys at the top level`);
  return doc;
}

function envTree(env: NodeJS.ProcessEnv, origins: Map<string, string>): Tree {
  const tree: Tree = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || RESERVED_ENV(name) || raw === undefined) continue;
    const keys = name.slice(ENV_PREFIX.length).toLowerCase().split('__');
    if (keys.some((k) => k === '')) throw new ConfigError(`environment variable ${name} does not name a config key`);
    setPath(tree, keys, parseScalar(raw));
    origins.set(keys.join('.'), `environment variable ${name}`);
  }
  return tree;
}

/** Env values are YAML scalars (`9000` is a number, `true` a boolean); anything structured stays text. */
function parseScalar(raw: string): unknown {
  try {
    const value: unknown = YAML.parse(raw);
    return value === null || typeof value === 'object' ? raw : value;
  } catch {
    return raw;
  }
}

function setPath(tree: Tree, keys: string[], value: unknown): void {
  let node = tree;
  keys.forEach((key, i) => {
    if (i === keys.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (!isTree(next)) node[key] = {};
    node = node[key] as Tree;
  });
}

function deepMerge(base: Tree, over: Tree, source: string | undefined, origins: Map<string, string>, prefix = ''): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const keyPath = prefix ? `${prefix}.${key}` : key;
    const current = out[key];
    if (isTree(current) && isTree(value)) out[key] = deepMerge(current, value, source, origins, keyPath);
    else {
      out[key] = value;
      if (source) origins.set(keyPath, `file ${source}`);
    }
  }
  return out;
}

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function formatIssues(issues: z.core.$ZodIssue[], origins: Map<string, string>): string {
  const lines = issues.map((issue) => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys
        .map((k) => {
          const keyPath = base ? `${base}.${k}` : k;
          return `config key "${keyPath}": unknown key${originNote(origins, keyPath)}`;
        })
        .join('\n');
    }
    return `config key "${base || '(root)'}": ${issue.message}${originNote(origins, base)}`;
  });
  return `invalid configuration:\n${lines.map((l) => `  - ${l.replace(/\n/g, '\n  - ')}`).join('\n')}`;
}

function originNote(origins: Map<string, string>, keyPath: string): string {
  const exact = origins.get(keyPath);
  if (exact) return ` (from ${exact})`;
  for (const [key, origin] of origins) {
    if (key === keyPath || key.startsWith(`${keyPath}.`) || keyPath.startsWith(`${key}.`)) return ` (from ${origin})`;
  }
  return '';
}
