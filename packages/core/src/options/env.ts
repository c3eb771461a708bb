import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'dotenv';
import { SiegelError } from '../errors.js';
import { DEFAULTS } from './options.js';

/** Where and as whom to sign, read from the environment. */
export interface SignerConfig {
  /** Bunker base address (`BUNKER_URL`), without trailing slash. */
  url: string;
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
 * readSignerConfig({ BUNKER_API_TOKEN: 't' }) // { url: 'http://localhost:7777', apiToken: 't', keyName: 'default' }
 * ```
 */
export function readSignerConfig(env: Record<string, string | undefined>): SignerConfig {
  const value = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };
  return {
    url: (value('BUNKER_URL') ?? DEFAULTS.bunkerUrl).replace(/\/+$/, ''),
    apiToken: value('BUNKER_API_TOKEN'),
    keyName: value('BUNKER_KEY_NAME') ?? DEFAULTS.bunkerKeyName,
  };
}

/**
 * The environment as a project sees it: `process.env` overlaid with `dir/.env` (parsed with dotenv,
 * silently; a missing file is fine). Returns a new object — `process.env` is never modified.
 *
 * `.env` wins over the inherited environment only for variables the environment leaves unset, as with
 * dotenv's default (`override: false`).
 *
 * @throws {SiegelError} `io_error` when `.env` exists but cannot be read.
 */
export function loadEnv(
  dir: string,
  base: Record<string, string | undefined> = process.env,
): Record<string, string | undefined> {
  const file = join(dir, '.env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ...base };
    throw new SiegelError('io_error', `Cannot read \`${file}\``, { cause: error });
  }
  const parsed = parse(text);
  const merged: Record<string, string | undefined> = { ...base };
  for (const [name, value] of Object.entries(parsed)) {
    if (merged[name] === undefined || merged[name] === '') merged[name] = value;
  }
  return merged;
}
