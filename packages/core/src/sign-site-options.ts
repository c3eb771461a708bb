import { resolve } from 'node:path';
import { SiegelError } from './errors.js';
import { defaultParseWorkers } from './parse-pool.js';
import { positiveInteger } from './positive-integer.js';
import { parseRelays, readRelaysFromEnv } from './relay-list.js';
import type { Signer } from './signer.js';

/** Where messages go. `error` is optional. */
export interface SiegelLogger {
  info(message: string): void;
  warn(message: string): void;
  error?(message: string): void;
}

/** Options of {@link signSite}; every field is optional. */
export interface SignSiteOptions {
  /** Public URL of the site, for page URLs and verify links (default: `SITE_URL` from `env`; required). */
  site?: string;
  /** CSS selector of the signed element (default `main`). */
  selector?: string;
  /** Report what would be signed; sign and write nothing (default `false`). */
  dryRun?: boolean;
  /** List every page and its outcome (default `false`). */
  verbose?: boolean;
  /** The cache file (default `.sign-cache.json` in the current directory, the project root). */
  cacheFile?: string;
  /** HTML files to consider, relative to the output directory (default: every `*.html` under it). */
  files?: string[];
  /** The signer (default: from `env` — the bunker at `BUNKER_URL` with `BUNKER_API_TOKEN`). */
  signer?: Signer;
  /** Environment for `BUNKER_*` and `SITE_URL` (default: none; entry points pass `loadEnv(root)`). */
  env?: Record<string, string | undefined>;
  /** Bunker address, overriding `BUNKER_URL`. */
  bunkerUrl?: string;
  /** Bunker token, overriding `BUNKER_API_TOKEN`. */
  bunkerApiToken?: string;
  /** Key name, overriding `BUNKER_KEY_NAME`. */
  bunkerKeyName?: string;
  /** Where notices, warnings and the summary go (default: the console). */
  logger?: SiegelLogger;
  /** Pages per bunker request (default 500; `SIEGEL_BATCH_SIZE` in `env`). */
  batchSize?: number;
  /** Batches in flight at once while parsing continues (default 2). */
  maxInFlight?: number;
  /** Show a progress line on stderr (default: when stderr is a terminal). */
  progress?: boolean;
  /**
   * Relays (`wss://` URLs) for the `nevent` hint in the block's `rel="alternate"` link (default:
   * `SIEGEL_RELAYS` from `env`, comma-separated, else none; the first 3 are used). Changing them re-signs
   * nothing: the event stays, only the blocks are rewritten.
   */
  relays?: string[];
  /** Worker threads that parse pages in `signSite` (default: CPUs − 1, at most 4; `SIEGEL_PARSE_WORKERS`; 0 = none). */
  parseWorkers?: number;
}

/** Defaults of {@link SignSiteOptions}. */
export const SIGN_SITE_DEFAULTS = {
  selector: 'main',
  cacheFile: '.sign-cache.json',
  batchSize: 500,
  maxInFlight: 2,
} as const;

const KNOWN = new Set([
  'site',
  'selector',
  'dryRun',
  'verbose',
  'cacheFile',
  'files',
  'signer',
  'env',
  'bunkerUrl',
  'bunkerApiToken',
  'bunkerKeyName',
  'logger',
  'batchSize',
  'maxInFlight',
  'progress',
  'relays',
  'outDir',
  'parseWorkers',
]);

/** Options with defaults applied. */
export interface ResolvedSignSiteOptions {
  site: string;
  selector: string;
  dryRun: boolean;
  verbose: boolean;
  cacheFile: string;
  files: string[] | undefined;
  signer: Signer | undefined;
  env: Record<string, string | undefined>;
  bunkerUrl: string | undefined;
  bunkerApiToken: string | undefined;
  bunkerKeyName: string | undefined;
  logger: SiegelLogger;
  batchSize: number;
  maxInFlight: number;
  progress: boolean;
  relays: string[];
  parseWorkers: number;
}

const consoleLogger: SiegelLogger = {
  info: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};

/**
 * Validate options and apply defaults.
 * @throws {SiegelError} `invalid_options` for unknown option names, a missing or bad `site`, bad numbers,
 *   a relay that is not a `wss://` URL.
 */
export function resolveSignSiteOptions(options: SignSiteOptions): ResolvedSignSiteOptions {
  for (const name of Object.keys(options)) {
    if (!KNOWN.has(name)) throw new SiegelError('invalid_options', `Unknown option \`${name}\``);
  }
  const env = options.env ?? {};
  const site = (options.site ?? env.SITE_URL)?.trim();
  if (!site) {
    throw new SiegelError(
      'invalid_options',
      'The site URL is required (option `site`, `--site`, or SITE_URL), e.g. `https://example.com`',
    );
  }
  let url: URL;
  try {
    url = new URL(site);
  } catch (cause) {
    throw new SiegelError('invalid_options', `The site URL \`${site}\` is not an absolute URL`, { cause });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SiegelError('invalid_options', `The site URL \`${site}\` must start with http:// or https://`);
  }
  const batchSize = positiveInteger(
    options.batchSize ?? numberFrom(env.SIEGEL_BATCH_SIZE),
    SIGN_SITE_DEFAULTS.batchSize,
    'batchSize',
  );
  const maxInFlight = positiveInteger(options.maxInFlight, SIGN_SITE_DEFAULTS.maxInFlight, 'maxInFlight');
  const selector = options.selector?.trim() || SIGN_SITE_DEFAULTS.selector;
  return {
    site: `${url.origin}${url.pathname}`.replace(/\/+$/, ''),
    selector,
    dryRun: options.dryRun ?? false,
    verbose: options.verbose ?? false,
    cacheFile: resolve(options.cacheFile ?? SIGN_SITE_DEFAULTS.cacheFile),
    files: options.files,
    signer: options.signer,
    env,
    bunkerUrl: options.bunkerUrl,
    bunkerApiToken: options.bunkerApiToken,
    bunkerKeyName: options.bunkerKeyName,
    logger: options.logger ?? consoleLogger,
    batchSize,
    maxInFlight,
    progress: options.progress ?? process.stderr.isTTY === true,
    relays: options.relays ? parseRelays(options.relays) : readRelaysFromEnv(env.SIEGEL_RELAYS),
    parseWorkers: nonNegativeInteger(
      options.parseWorkers ?? numberFrom(env.SIEGEL_PARSE_WORKERS),
      defaultParseWorkers(),
      'parseWorkers',
    ),
  };
}

function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new SiegelError('invalid_options', `\`${name}\` must be a whole number ≥ 0, got \`${value}\``);
  }
  return value;
}

function numberFrom(value: string | undefined): number | undefined {
  return value?.trim() ? Number(value) : undefined;
}
