// options/ owns what a run is told before it starts: the one table of defaults, the one options schema
// (strict: an unknown or malformed option is refused by the schema itself, so a typo never silently turns
// signing off) from which the build integrations derive theirs (integration/), the resolution of options
// against the environment, and reading that environment (`.env`, `BUNKER_*`: env.ts).
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { SiegelError } from '../errors.js';
import { parseRelays, readRelaysFromEnv } from '../nostr/relays.js';
import type { Signer } from '../nostr/signer.js';
import { checkSiteUrl, describeSiteProblem } from '../page/page-event.js';
import { siteBaseOf } from '../page/page-loads.js';
import { compileSelector, DEFAULT_SELECTOR } from '../page/selector.js';
import { parseByteSize } from '../text/byte-size.js';
import { type ManifestOptions, manifestOptionsShape, resolveManifestOptions } from './manifest-options.js';
import { type MarkOptions, markOptionsShape, resolveMarkOptions } from './mark-options.js';
import { must } from './must.js';

export { must } from './must.js';

/**
 * Every default of `@siegel/core`, once: `signSite`, the integrations, `createSigner` and
 * `HttpBunkerSigner` read theirs from here.
 */
export const DEFAULTS = {
  /** `BUNKER_URL` when unset. */
  bunkerUrl: 'http://localhost:7777',
  /** `BUNKER_KEY_NAME` when unset. */
  bunkerKeyName: 'default',
  /** The signed element: `main`. */
  selector: DEFAULT_SELECTOR,
  /** The cache, relative to the project root (the current directory for the CLI). */
  cacheFile: '.sign-cache.json',
  dryRun: false,
  verbose: false,
  /** What an integration does with a signing error: fail the build. */
  onError: 'fail',
  /** Events per bunker request (`SIEGEL_BATCH_SIZE`). */
  batchSize: 500,
  /** Batches in flight at once while parsing continues. */
  maxInFlight: 2,
  /** Timeout of one bunker request (one NIP-46 request), in milliseconds. */
  timeoutMs: 30_000,
  /** NIP-46 requests in flight at once: a remote signer signs one event per request. */
  nip46Window: 16,
  /** Timeout of the first NIP-46 `connect`, which may wait for a person to approve, in milliseconds. */
  nip46ConnectTimeoutMs: 120_000,
  /** The NIP-46 client key, beside the cache (a secret: mode 0600, never committed). */
  nip46ClientKeyFile: '.siegel-nip46-client.json',
  /** Extra attempts for a transient bunker failure. */
  retries: 2,
  /** First backoff delay before such an attempt, doubled per attempt, in milliseconds. */
  retryDelayMs: 200,
  /** Parallel single-event requests to a bunker without the batch route. */
  compatConcurrency: 4,
  /** Schnorr signatures verified per batch a signer returns (at random positions). */
  verifySignatures: 16,
  /**
   * Largest page `signSite` reads and `verifySite` fetches, in bytes: 32 MiB (`SIEGEL_MAX_PAGE_BYTES`). A
   * page takes about 14× its size in memory while it is parsed (the tree of every element and text), so
   * a larger one is refused, as a failed page, before it is read. See the README, "Performance".
   */
  maxPageBytes: 32 * 1024 * 1024,
  /**
   * How long a signing run waits for the relays' answers once its last page is signed, in milliseconds
   * (`SIEGEL_PUBLISH_TIMEOUT_MS`, `--publish-timeout`): 5 s. What no relay confirmed by then waits in the
   * outbox for the next run or `siegel publish`; a silent relay cannot hold a build longer than this.
   */
  publishTimeoutMs: 5_000,
  /** The same budget for `siegel publish` (`publishSite`), which only publishes: 30 s. */
  publishCommandTimeoutMs: 30_000,
} as const;

/**
 * Parse workers when none are configured: one less than the CPUs (the main thread reads, hashes and
 * writes), at most 4.
 */
export function defaultParseWorkers(): number {
  return Math.max(0, Math.min(4, availableParallelism() - 1));
}

/** Where messages go. `error` is optional. */
export interface SiegelLogger {
  info(message: string): void;
  warn(message: string): void;
  error?(message: string): void;
}

/**
 * Mirrors: site base URLs the pages are also served at, each an absolute http(s) URL, normalised like `site`
 * (origin and path, no trailing `/`), duplicates and blanks dropped. `source` names where they came from
 * (`mirrors`, `--mirror`, `SIEGEL_MIRRORS`) in the error.
 * @throws {SiegelError} `invalid_options` quoting the bad URL and naming `source`.
 */
export function parseMirrors(values: readonly string[], source = 'mirrors'): string[] {
  const mirrors: string[] = [];
  for (const raw of values) {
    const value = raw.trim();
    if (!value) continue;
    const problem = describeSiteProblem(value, 'mirror URL');
    if (problem) throw new SiegelError('invalid_options', `${problem} (\`${source}\`)`);
    const mirror = siteBaseOf(new URL(value));
    if (!mirrors.includes(mirror)) mirrors.push(mirror);
  }
  return mirrors;
}

/** `SIEGEL_MIRRORS`: comma-separated mirror URLs as {@link parseMirrors} takes them (blank: none). */
export function readMirrorsFromEnv(value: string | undefined): string[] {
  return value?.trim() ? parseMirrors(value.split(','), 'SIEGEL_MIRRORS') : [];
}

function isRelayHint(relay: string): boolean {
  try {
    parseRelays([relay]);
    return true;
  } catch {
    return false;
  }
}

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null;
const HTTP_URL = 'an absolute http(s) URL';
/** A site or mirror URL as an option: a string {@link describeSiteProblem} finds nothing wrong with. */
const httpUrl = () =>
  z.string(must(HTTP_URL)).refine((url) => describeSiteProblem(url.trim()) === undefined, must(HTTP_URL));
const POSITIVE = 'a positive integer';
const POSITIVE_OR_ALL = "a positive integer or 'all'";
const RELAY = 'a wss:// URL (ws:// on loopback) of at most 255 bytes';
const WHOLE = 'a whole number ≥ 0';
const SIGNER = 'a Signer or a bunker://<hex pubkey>?relay=… URI';

/**
 * The options of `signSite`, as a strict zod schema: every field optional, unknown fields refused, each
 * message saying what the value must be. The build integrations' schema is derived from it
 * (`integrationOptionsSchema` in `@siegel/core/integration`).
 */
export const signSiteOptionsSchema = z
  .strictObject({
    /** Public URL of the site, for page URLs and verify links (default: `SITE_URL` from `env`; required). */
    site: httpUrl(),
    /**
     * Other base URLs the same pages are served at, e.g. `['https://mirror.example.org']` (default:
     * `SIEGEL_MIRRORS` from `env`, comma-separated, else none). Each page's event carries one NIP-94
     * `fallback` tag per mirror (the mirror joined with the page's path), and every verifier accepts the
     * page at those addresses too. Changing them re-signs every page: the events change.
     */
    mirrors: z.array(httpUrl(), must('an array of absolute http(s) URLs')),
    /** CSS selector of the signed element (default `main`). */
    selector: z
      .string(must('a CSS selector'))
      .refine((selector) => selector.trim() !== '', must('a CSS selector')),
    /** Report what would be signed; sign and write nothing (default `false`). */
    dryRun: z.boolean(must('true or false')),
    /** List every page and its outcome (default `false`). */
    verbose: z.boolean(must('true or false')),
    /** The cache file (default `.sign-cache.json` in the current directory, the project root). */
    cacheFile: z.string(must('a file path')).min(1, must('a file path')),
    /** HTML files to consider, relative to the output directory (default: every `*.html` under it). */
    files: z.array(z.string(must('a path')), must('an array of paths')),
    /**
     * The signer (default: from `env` — the bunker at `BUNKER_URL` with `BUNKER_API_TOKEN`): a `Signer`, or
     * a NIP-46 remote signer's `bunker://<pubkey>?relay=wss://…&secret=…` URI (its client key is kept
     * beside the cache, `.siegel-nip46-client.json`).
     */
    signer: z.union(
      [
        z.custom<Signer>(isObject, must(SIGNER)),
        z
          .string(must(SIGNER))
          .refine((value) => /^bunker:\/\/[0-9a-f]{64}\?/i.test(value.trim()), must(SIGNER)),
      ],
      must(SIGNER),
    ),
    /** Environment for `BUNKER_*` and `SITE_URL` (default: none; entry points pass `loadEnv(root)`). */
    env: z.custom<Record<string, string | undefined>>(isObject, must('an object')),
    /** Bunker address, overriding `BUNKER_URL`. */
    bunkerUrl: z.url(must('a URL')),
    /** Bunker token, overriding `BUNKER_API_TOKEN`. */
    bunkerApiToken: z.string(must('a string')),
    /** Key name, overriding `BUNKER_KEY_NAME`. */
    bunkerKeyName: z.string(must('a key name')).min(1, must('a key name')),
    /** Where notices, warnings and the summary go (default: the console). */
    logger: z.custom<SiegelLogger>(isObject, must('a logger')),
    /** Pages per bunker request (default 500; `SIEGEL_BATCH_SIZE` in `env`). */
    batchSize: z.int(must(POSITIVE)).min(1, must(POSITIVE)),
    /** Batches in flight at once while parsing continues (default 2). */
    maxInFlight: z.int(must(POSITIVE)).min(1, must(POSITIVE)),
    /** Show a progress line on stderr (default: when stderr is a terminal). */
    progress: z.boolean(must('true or false')),
    /**
     * Relays (`wss://` URLs) for the `nevent` hint in the block's `rel="alternate"` link (default:
     * `SIEGEL_RELAYS` from `env`, comma-separated, else none; the first 3 are used). Changing them re-signs
     * nothing: the event stays, only the blocks are rewritten.
     */
    relays: z.array(z.string(must(RELAY)).refine(isRelayHint, must(RELAY)), must('an array of wss:// URLs')),
    /** Worker threads that parse pages in `signSite` (default: CPUs − 1, at most 4; `SIEGEL_PARSE_WORKERS`; 0 = none). */
    parseWorkers: z.int(must(WHOLE)).min(0, must(WHOLE)),
    /**
     * How long the run waits for the relays' answers after its last page is signed, in milliseconds
     * (default 5000; `SIEGEL_PUBLISH_TIMEOUT_MS`). Events no relay confirmed by then wait in the outbox.
     */
    publishTimeoutMs: z.int(must(WHOLE)).min(0, must(WHOLE)),
    /** Largest page to sign, in bytes (default 32 MiB; `SIEGEL_MAX_PAGE_BYTES`): a larger one fails, unread. */
    maxPageBytes: z.int(must(POSITIVE)).min(1, must(POSITIVE)),
    /**
     * Schnorr signatures verified per batch a signer returns, at random positions (default 16; `'all'`
     * verifies every one). Every event's template, pubkey and id are checked regardless, for every signer.
     */
    verifySignatures: z.union(
      [z.int(must(POSITIVE)).min(1, must(POSITIVE)), z.literal('all', must(POSITIVE_OR_ALL))],
      must(POSITIVE_OR_ALL),
    ),
    ...manifestOptionsShape,
    ...markOptionsShape,
  })
  .partial();

/** Options of {@link signSite}; every field is optional (see {@link signSiteOptionsSchema}). */
export type SignSiteOptions = z.input<typeof signSiteOptionsSchema>;

/** Options with defaults applied. */
export interface ResolvedSignSiteOptions {
  site: string;
  /** Mirror base URLs, normalised like `site` (no trailing `/`); `[]` for none. */
  mirrors: string[];
  selector: string;
  dryRun: boolean;
  verbose: boolean;
  cacheFile: string;
  files: string[] | undefined;
  /** A `Signer`, or a `bunker://` URI (`openSigner` makes a NIP-46 signer of it). */
  signer: Signer | string | undefined;
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
  maxPageBytes: number;
  /** Milliseconds to wait for the relays' answers after the last page is signed. */
  publishTimeoutMs: number;
  /** Signatures verified per batch; `Infinity` for `'all'`. */
  verifySignatures: number;
  /** The site manifest's kind, site id and optional tags (options/manifest-options.ts). */
  manifest: ManifestOptions;
  /** The reader's mark on every signed page, or `undefined` when off (options/mark-options.ts). */
  mark: MarkOptions | undefined;
}

const consoleLogger: SiegelLogger = {
  info: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};

/**
 * Check `input` against `schema`; the message of the first problem, unknown options first.
 * @throws {SiegelError} `invalid_options` with that message.
 */
function check(schema: z.ZodType, input: unknown, describe: (issue: z.core.$ZodIssue) => string): void {
  const result = schema.safeParse(input);
  if (result.success) return;
  const { issues } = result.error;
  const issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0];
  if (issue) throw new SiegelError('invalid_options', describe(issue));
}

/**
 * Validate options with {@link signSiteOptionsSchema} and apply the defaults and the environment
 * (`SITE_URL`, `SIEGEL_MIRRORS`, `SIEGEL_BATCH_SIZE`, `SIEGEL_RELAYS`, `SIEGEL_PARSE_WORKERS`, `SIEGEL_MAX_PAGE_BYTES`,
 * `SIEGEL_PUBLISH_TIMEOUT_MS`). A blank `selector` means the default, as `--selector ''` always did.
 *
 * @example
 * ```ts
 * resolveSignSiteOptions({ site: 'https://example.com' }).batchSize; // 500
 * ```
 * @throws {SiegelError} `invalid_options` for unknown option names, a missing or bad `site`, a mirror
 *   that is not an absolute http(s) URL, bad numbers,
 *   a relay that is not a `wss://` URL, a selector outside the supported subset (the message `siegel verify`
 *   gives it).
 */
export function resolveSignSiteOptions(options: SignSiteOptions): ResolvedSignSiteOptions {
  // Relays first: parseRelays names the bad relay and where it came from (`relays`, `SIEGEL_RELAYS`).
  const relays =
    Array.isArray(options.relays) && options.relays.every((relay) => typeof relay === 'string')
      ? parseRelays(options.relays)
      : undefined;
  // Mirrors too: parseMirrors names the bad URL and the option.
  const mirrors =
    Array.isArray(options.mirrors) && options.mirrors.every((mirror) => typeof mirror === 'string')
      ? parseMirrors(options.mirrors)
      : undefined;
  const given = options.selector?.trim() === '' ? { ...options, selector: undefined } : options;
  check(signSiteOptionsSchema, given, (issue) =>
    issue.code === 'unrecognized_keys'
      ? `Unknown option \`${[...issue.path, issue.keys[0]].join('.')}\``
      : `\`${issue.path.join('.')}\` ${issue.message}`,
  );
  const env = options.env ?? {};
  const site = (options.site ?? env.SITE_URL)?.trim();
  if (!site) {
    throw new SiegelError(
      'invalid_options',
      'The site URL is required (option `site`, `--site`, or SITE_URL), e.g. `https://example.com`',
    );
  }
  // The CLI checks `--site` itself (naming the flag); here the option or, named, the environment's.
  checkSiteUrl(site, options.site === undefined ? 'SITE_URL' : undefined);
  const siteBase = siteBaseOf(new URL(site));
  // The environment's numbers count (and are checked) only where the option is not given.
  const fromEnv = {
    batchSize: options.batchSize === undefined ? numberFrom(env.SIEGEL_BATCH_SIZE) : undefined,
    parseWorkers: options.parseWorkers === undefined ? numberFrom(env.SIEGEL_PARSE_WORKERS) : undefined,
    publishTimeoutMs:
      options.publishTimeoutMs === undefined ? numberFrom(env.SIEGEL_PUBLISH_TIMEOUT_MS) : undefined,
  };
  check(signSiteOptionsSchema, fromEnv, (issue) => `\`${issue.path.join('.')}\` ${issue.message}`);
  const selector = options.selector?.trim() || DEFAULTS.selector;
  // A selector outside the supported subset is a usage error before any page is read (as in verify), not
  // a failure of every page.
  compileSelector(selector);
  return {
    site: siteBase,
    // The site itself is no mirror of itself.
    mirrors: (mirrors ?? readMirrorsFromEnv(env.SIEGEL_MIRRORS)).filter((mirror) => mirror !== siteBase),
    selector,
    dryRun: options.dryRun ?? DEFAULTS.dryRun,
    verbose: options.verbose ?? DEFAULTS.verbose,
    cacheFile: resolve(options.cacheFile ?? DEFAULTS.cacheFile),
    files: options.files,
    signer: options.signer,
    env,
    bunkerUrl: options.bunkerUrl,
    bunkerApiToken: options.bunkerApiToken,
    bunkerKeyName: options.bunkerKeyName,
    logger: options.logger ?? consoleLogger,
    batchSize: options.batchSize ?? fromEnv.batchSize ?? DEFAULTS.batchSize,
    maxInFlight: options.maxInFlight ?? DEFAULTS.maxInFlight,
    progress: options.progress ?? process.stderr.isTTY === true,
    relays: relays ?? readRelaysFromEnv(env.SIEGEL_RELAYS),
    parseWorkers: options.parseWorkers ?? fromEnv.parseWorkers ?? defaultParseWorkers(),
    maxPageBytes:
      options.maxPageBytes ??
      (env.SIEGEL_MAX_PAGE_BYTES?.trim()
        ? parseByteSize(env.SIEGEL_MAX_PAGE_BYTES, 'SIEGEL_MAX_PAGE_BYTES')
        : DEFAULTS.maxPageBytes),
    publishTimeoutMs: options.publishTimeoutMs ?? fromEnv.publishTimeoutMs ?? DEFAULTS.publishTimeoutMs,
    verifySignatures:
      options.verifySignatures === 'all'
        ? Number.POSITIVE_INFINITY
        : (options.verifySignatures ?? DEFAULTS.verifySignatures),
    manifest: resolveManifestOptions(options, env, siteBase),
    mark: resolveMarkOptions(options.mark, siteBase),
  };
}

/**
 * A positive whole number option outside the schema (`HttpBunkerSigner`'s): `fallback` when unset.
 *
 * @throws {SiegelError} `invalid_options` naming the option and quoting the bad value.
 */
export function positiveIntegerOption(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new SiegelError('invalid_options', `\`${name}\` ${must(POSITIVE).error({ input: value })}`);
  return value;
}

function numberFrom(value: string | undefined): number | undefined {
  return value?.trim() ? Number(value) : undefined;
}
