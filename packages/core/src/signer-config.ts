import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'dotenv';
import { createGermanError, SiegelError } from './errors.js';
import { HttpBunkerSigner } from './http-bunker-signer.js';
import { LocalKeySigner } from './local-key-signer.js';

import { SIGNER_DEFAULTS } from './signer-defaults.js';

export { SIGNER_DEFAULTS };

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
 * Read the signer configuration from an environment object, applying the DESIGN defaults.
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
    url: (value('BUNKER_URL') ?? SIGNER_DEFAULTS.url).replace(/\/+$/, ''),
    apiToken: value('BUNKER_API_TOKEN'),
    keyName: value('BUNKER_KEY_NAME') ?? SIGNER_DEFAULTS.keyName,
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

/** Options of {@link createSigner}; explicit values win over the environment. */
export interface CreateSignerOptions {
  /** Environment to read `BUNKER_*` from (default: none — pass `loadEnv(dir)` at entry points). */
  env?: Record<string, string | undefined>;
  /** Bunker base address (default: `BUNKER_URL`, else `http://localhost:7777`). */
  url?: string;
  /** Bearer token (default: `BUNKER_API_TOKEN`). */
  apiToken?: string;
  /** Key name (default: `BUNKER_KEY_NAME`, else `default`). */
  keyName?: string;
  /** A local secret key (hex or nsec): when given, signs in-process with {@link LocalKeySigner}. */
  secretKey?: string;
}

/**
 * Create the signer a project is configured for: a {@link LocalKeySigner} when `secretKey` is given,
 * else an {@link HttpBunkerSigner} for the configured bunker.
 *
 * @example
 * ```ts
 * const signer = createSigner({ env: loadEnv(process.cwd()) });
 * ```
 * @throws {SiegelError} `token_missing` (`BUNKER_API_TOKEN nicht gesetzt`) when no token is configured.
 */
export function createSigner(options: CreateSignerOptions = {}): HttpBunkerSigner | LocalKeySigner {
  if (options.secretKey) return new LocalKeySigner(options.secretKey);
  const config = readSignerConfig(options.env ?? {});
  const apiToken = options.apiToken?.trim() || config.apiToken;
  if (!apiToken) {
    throw createGermanError(
      'token_missing',
      'BUNKER_API_TOKEN is not set: put it in `.env` in the project root or in the environment.',
    );
  }
  return new HttpBunkerSigner({
    url: options.url ?? config.url,
    apiToken,
    keyName: options.keyName ?? config.keyName,
  });
}
