import { join, resolve } from 'node:path';

/** The service's settings, as {@link readServerConfig} reads them from the environment. */
export interface ServerConfig {
  /** `HOST`, default `127.0.0.1`. */
  host: string;
  /** `PORT`, default `8787`. */
  port: number;
  /** `BASE_URL`, default `http://localhost:{PORT}`; no trailing slash. */
  baseUrl: string;
  /** `CDN_URL`, default `BASE_URL`; no trailing slash. */
  cdnUrl: string;
  /** `SIEGEL_DATA_DIR`, default `./data` (absolute here). */
  dataDir: string;
  /** `SIGN_API_TOKENS`, comma-separated; default none (signing is refused until one is set). */
  signTokens: string[];
  /** `MAX_UPLOAD_BYTES`, default 25 MiB. */
  maxUploadBytes: number;
  /** `SIGN_RATE_LIMIT`: uploads (sign + inspect) per client per minute, default 60. */
  rateLimitPerMinute: number;
}

/** Defaults of every setting. */
export const SERVER_DEFAULTS = {
  host: '127.0.0.1',
  port: 8787,
  dataDir: './data',
  maxUploadBytes: 25 * 1024 * 1024,
  rateLimitPerMinute: 60,
} as const;

/**
 * Read the service's settings from `env` (only `main.ts` passes `process.env`).
 *
 * @throws {Error} for a malformed number or URL, quoting the value.
 */
export function readServerConfig(env: Record<string, string | undefined>, cwd = process.cwd()): ServerConfig {
  const port = readInteger(env, 'PORT', SERVER_DEFAULTS.port);
  const baseUrl = readUrl(env, 'BASE_URL', `http://localhost:${port}`);
  return {
    host: env.HOST?.trim() || SERVER_DEFAULTS.host,
    port,
    baseUrl,
    cdnUrl: readUrl(env, 'CDN_URL', baseUrl),
    dataDir: resolve(cwd, env.SIEGEL_DATA_DIR?.trim() || SERVER_DEFAULTS.dataDir),
    signTokens: (env.SIGN_API_TOKENS ?? '')
      .split(',')
      .map((token) => token.trim())
      .filter((token) => token !== ''),
    maxUploadBytes: readInteger(env, 'MAX_UPLOAD_BYTES', SERVER_DEFAULTS.maxUploadBytes),
    rateLimitPerMinute: readInteger(env, 'SIGN_RATE_LIMIT', SERVER_DEFAULTS.rateLimitPerMinute),
  };
}

/** Path of the SQLite database inside the data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'siegel.sqlite');
}

/** Directory of stored files inside the data directory. */
export function filesPath(dataDir: string): string {
  return join(dataDir, 'files');
}

function readInteger(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0)
    throw new Error(`${name} must be a positive integer, got \`${raw}\``);
  return Number(raw);
}

function readUrl(env: Record<string, string | undefined>, name: string, fallback: string): string {
  const raw = env[name]?.trim() || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL, got \`${raw}\``);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name} must be an absolute http(s) URL, got \`${raw}\``);
  }
  return raw.replace(/\/+$/, '');
}
