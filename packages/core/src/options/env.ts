import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'dotenv';
import { SiegelError } from '../errors.js';
import { DEFAULTS } from './options.js';

/**
 * Where a configuration value came from, for messages that name it: the process environment (or an `env`
 * object a program passed), a `.env` file (its path), an explicit option, or nowhere — the default applies
 * (`envFile`: the `.env` that was looked for, when {@link loadEnv} read the environment).
 */
export type ValueSource =
  | { kind: 'environment' }
  | { kind: 'env-file'; path: string }
  | { kind: 'option'; name: string }
  | { kind: 'default'; envFile?: string };

/** What {@link loadEnv} took from `.env`, per environment object it returned (read by {@link readEnvSource}). */
const loadedFromFile = new WeakMap<object, { file: string; names: ReadonlySet<string> }>();

/**
 * Where `name` of `env` came from: `.env` when {@link loadEnv} took it from there, the environment when it
 * is set otherwise, else the default. Blank values count as unset.
 *
 * @example
 * ```ts
 * readEnvSource(loadEnv('/site'), 'BUNKER_URL') // { kind: 'env-file', path: '/site/.env' } when set there
 * ```
 */
export function readEnvSource(env: Record<string, string | undefined>, name: string): ValueSource {
  const loaded = loadedFromFile.get(env);
  if (!env[name]?.trim()) return loaded ? { kind: 'default', envFile: loaded.file } : { kind: 'default' };
  return loaded?.names.has(name) ? { kind: 'env-file', path: loaded.file } : { kind: 'environment' };
}

/**
 * `name` and where its value came from, as a sentence for messages.
 *
 * @example
 * ```ts
 * describeValueSource('BUNKER_URL', { kind: 'env-file', path: '/site/.env' }) // 'BUNKER_URL is set in `/site/.env`.'
 * ```
 */
export function describeValueSource(name: string, source: ValueSource): string {
  switch (source.kind) {
    case 'environment':
      return `${name} is set in the environment (which wins over \`.env\`).`;
    case 'env-file':
      return `${name} is set in \`${source.path}\`.`;
    case 'option':
      return `The address is the \`${source.name}\` option (${name} is not used).`;
    case 'default':
      return `${name} is not set${source.envFile === undefined ? '' : ` (neither in the environment nor in \`${source.envFile}\`)`}: this is the default.`;
  }
}

/** Where and as whom to sign, read from the environment. */
export interface SignerConfig {
  /** Bunker base address (`BUNKER_URL`), without trailing slash. */
  url: string;
  /** Where {@link SignerConfig.url} came from (see {@link readEnvSource}). */
  urlSource: ValueSource;
  /** Bearer token (`BUNKER_API_TOKEN`); `undefined` when unset or blank. */
  apiToken: string | undefined;
  /** Key name (`BUNKER_KEY_NAME`). */
  keyName: string;
}

/**
 * Read the signer configuration from an environment object, applying the defaults of docs/configuration.md.
 * Blank values count as unset.
 *
 * @example
 * ```ts
 * readSignerConfig({ BUNKER_API_TOKEN: 't' })
 * // { url: 'http://localhost:7777', urlSource: { kind: 'default' }, apiToken: 't', keyName: 'default' }
 * ```
 */
export function readSignerConfig(env: Record<string, string | undefined>): SignerConfig {
  const value = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };
  return {
    url: (value('BUNKER_URL') ?? DEFAULTS.bunkerUrl).replace(/\/+$/, ''),
    urlSource: readEnvSource(env, 'BUNKER_URL'),
    apiToken: value('BUNKER_API_TOKEN'),
    keyName: value('BUNKER_KEY_NAME') ?? DEFAULTS.bunkerKeyName,
  };
}

/**
 * The environment as a project sees it: `process.env` overlaid with `dir/.env` (parsed with dotenv,
 * silently; a missing file is fine). Returns a new object — `process.env` is never modified.
 *
 * `.env` wins over the inherited environment only for variables the environment leaves unset, as with
 * dotenv's default (`override: false`). The object remembers which values came from `.env`, for messages
 * that name where a value was set ({@link readEnvSource}); a copy of it does not.
 *
 * @throws {SiegelError} `io_error` when `.env` exists but cannot be read.
 */
export function loadEnv(
  dir: string,
  base: Record<string, string | undefined> = process.env,
): Record<string, string | undefined> {
  const file = resolve(dir, '.env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      const env = { ...base };
      loadedFromFile.set(env, { file, names: new Set() });
      return env;
    }
    throw new SiegelError('io_error', `Cannot read \`${file}\``, { cause: error });
  }
  const parsed = parse(text);
  const merged: Record<string, string | undefined> = { ...base };
  const names = new Set<string>();
  for (const [name, value] of Object.entries(parsed)) {
    if (merged[name] === undefined || merged[name] === '') {
      merged[name] = value;
      names.add(name);
    }
  }
  loadedFromFile.set(merged, { file, names });
  return merged;
}
