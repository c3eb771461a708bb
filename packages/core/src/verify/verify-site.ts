// verify/ owns everything a reader uses to check a signed site: the verify pages written beside it
// (verify-output.ts writes `verify/{id}/index.html` and `verify/{id}.json`, verify-page.ts renders them),
// the browser script they run (script/main.ts, bundled with esbuild from the same page/ code the signer
// uses), and `verifySite` here, which checks a directory or a live site from Node (`siegel verify`): it
// reads the site through a source (dir-source.ts, url-source.ts), judges each page with the rule book
// (page-check.ts, rules.ts), asks relays for events a site lacks (below), and verify-report.ts words the
// result.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { decode } from 'nostr-tools/nip19';
import { SiegelError } from '../errors.js';
import { requireDirectory } from '../fs/find-pages.js';
import { getBlob, parseBlossomServers } from '../net/blossom.js';
import type { ConnectPolicy } from '../net/connect-policy.js';
import { SITE_CLIENT_DEFAULTS, SiteClient } from '../net/site-client.js';
import { computeEventId, HEX64, loadSigningEngine } from '../nostr/crypto.js';
import { queryRelay, RELAY_QUERY_DEFAULTS } from '../nostr/relay-query.js';
import { allowRelayHintsFrom, parseRelays } from '../nostr/relays.js';
import { verifyEventSignature } from '../nostr/verify-signature.js';
import { DEFAULTS, defaultParseWorkers } from '../options/options.js';
import { pageUrl } from '../page/page-event.js';
import { compileCachedSelector } from '../page/selector.js';
import { createProgressLine, type ProgressLine } from '../text/progress-line.js';
import { dirSource } from './dir-source.js';
import { createManifestEvidence, verifyFilesOf } from './manifest-evidence.js';
import { resolveNip05 } from './nip05.js';
import { checkPage, type PageCheckContext, unreadPage } from './page-check.js';
import { lookupOnRelays, soundEvents } from './relay-lookup.js';
import type { EventEvidence, ManifestEvidence, Verdict } from './rules.js';
import { MissingEvent, type SourcePage } from './site-source.js';
import { urlSource } from './url-source.js';
import type { PageVerification, VerifyReport } from './verify-report.js';

// The report (its types and wording) lives in verify-report.ts; callers import it from here as before.
export {
  formatVerifyReport,
  formatVerifyReportJson,
  type PageVerification,
  type VerifyReport,
} from './verify-report.js';

/** @internal A page as `verifySite` judged it, with the facts it judged it by. */
export interface SeenPage {
  page: Exclude<SourcePage, { problem: string }>;
  verification: PageVerification;
  event: EventEvidence | undefined;
  manifest: ManifestEvidence | undefined;
}

/** Options of {@link verifySite}; every field optional. */
export interface VerifySiteOptions {
  /** The expected signer, hex or `npub` (default: any signer, as long as block and event agree). */
  pubkey?: string;
  /** CSS selector of the signed element (default `main`). */
  selector?: string;
  /** Most pages to visit when crawling a URL (default 1000). */
  maxPages?: number;
  /**
   * Largest page, in bytes (default 32 MiB, as for signing): a larger file is not read, a larger response
   * — as sent, or unpacked — is cut off; the page counts as invalid (the start page of a URL: an error).
   */
  maxPageBytes?: number;
  /** URL only: origins redirects may lead to besides the site's own (default none). */
  allowRedirectsTo?: string[];
  /** URL only: redirects followed per request (default 5). */
  maxRedirects?: number;
  /** URL only: time for one request, connect to last byte, in ms (default 30 000). */
  requestTimeoutMs?: number;
  /** URL only: time for the whole check, in ms (default 600 000). */
  totalTimeoutMs?: number;
  /**
   * URL only: the User-Agent pages are asked for with (default `BROWSER_USER_AGENT`, a current Chromium's:
   * pages are asked for as a browser's navigation asks, `Sec-Fetch-*` headers and all; event files as before).
   */
  userAgent?: string;
  /**
   * URL only: ask for each page a second time as a plain client (no `Sec-Fetch-*`, User-Agent
   * `siegel-verify`) and report `page.cloaked` when its signed element differs from the browser's (default
   * `false`). A page the plain client cannot read is `page.unavailable`: the two were not compared.
   */
  checkCloaking?: boolean;
  /**
   * The verifier's own relays (default none; the CLI: `--relay`, else `SIEGEL_RELAYS`): asked for an event
   * whose `verify/{id}.json` is missing, besides the `nevent` hints of the page's block, and for the newest
   * site manifest, which only these and the key's NIP-65 relays found on them can show current
   * (`manifest.unchecked` otherwise). `wss://` URLs, `ws://` only on a loopback host (`parseRelays`).
   */
  relays?: string[];
  /** Time for one relay lookup, connect to `EOSE`, in ms (default 10 000). */
  relayTimeoutMs?: number;
  /**
   * The expected signer as a NIP-05 identifier, `name@domain` (default none): its pubkey is read from
   * `https://domain/.well-known/nostr.json?name=name` (see `resolveNip05`) and pinned like `pubkey`.
   */
  signer?: string;
  /**
   * Directory only: the site's public URL (`SITE_URL`, as for signing). Each page's event must name
   * `site` joined with the page's path (default: none — the address is not compared, warning
   * `address.unchecked`). A URL is always compared with where each page was fetched.
   */
  site?: string;
  /**
   * Directory only: worker threads that parse pages while the main thread loads events and judges
   * (default as for signing: CPUs − 1, at most 4; 0: parse on the main thread). Directories under 64 pages
   * are parsed on the main thread. Each worker adds about 60–100 MB at its peak (measured on 10 000 pages).
   */
  parseWorkers?: number;
  /**
   * Directory only: show a progress line on stderr, `Siegel: 120/3000 pages`, as a signing run does
   * (default: when stderr is a terminal; directories under 100 pages show none).
   */
  progress?: boolean;
  /**
   * Which addresses the check may connect to (net/connect-policy.ts, e.g. `PUBLIC_ADDRESSES_ONLY`), for a
   * verifier that must not be a path into its own network (a server checking URLs strangers give it).
   * It governs every connection: the page and its redirects, the site's files, Blossom blobs, relays (hints
   * and `relays` alike) and NIP-05 — each host resolved once and judged, the judged address the one
   * connected to. Default: none — a URL's site may be on a private address, and then only its own are
   * reached; relay hints on a local host are asked only when the page is served from one.
   */
  policy?: ConnectPolicy;
}

/**
 * Check a signed site, in a directory or served at a URL (crawled from there, same origin and path): for
 * every page, read the signature block (also the `sha256:`/`nevent`/`npub` variants), load the event
 * (`verify/{id}.json`; when missing, from the `nevent`'s relay hints and `relays`), and let the rule book
 * ({@link judgePage}) decide: event id, Schnorr signature, kind, spec, the `x` tag against the page's hash
 * now, the block against the event, the expected signer when given (`pubkey`, or `signer` by NIP-05), and
 * the event's `url` against the address (URL: where the page was fetched; directory: `site` joined with
 * its path — without `site`, the warning `address.unchecked`). A URL is fetched by a careful client
 * (`net/`): bounded responses and time, redirects only within the site's origin, no private addresses but
 * the site's own; its pages are asked for as a browser's navigation asks (`userAgent`), and with
 * `checkCloaking` also as a plain client, whose reading must be the same (`page.cloaked`).
 *
 * @example
 * ```ts
 * const report = await verifySite('dist', { pubkey: 'npub1…', site: 'https://example.com' });
 * if (!report.ok) process.exitCode = 1;
 * ```
 * @throws {SiegelError} `invalid_options` for a bad `pubkey`, `site`, relay, NIP-05 identifier or option
 * (or a `pubkey` that is not the `signer`'s key); `io_error` when the directory or the start URL cannot be
 * read (refused, too large, too slow), when the whole check runs out of time, or when the `signer`'s domain
 * does not name a key for it.
 */
export async function verifySite(
  dirOrUrl: string,
  options: VerifySiteOptions = {},
  /** @internal What else a caller keeps of each judged page (`checkPageAtUrl`: the content, the event). */
  observe?: (seen: SeenPage) => void,
): Promise<VerifyReport> {
  const pinned = options.pubkey === undefined ? undefined : parsePubkey(options.pubkey);
  const extraRelays = parseRelays(options.relays ?? [], '--relay');
  const expectedPubkey = await readExpectedSigner(pinned, options);
  const selector = options.selector ?? 'main';
  // Checked here, before any page: a parse worker could only report it as text.
  compileCachedSelector(selector);
  const maxPageBytes = options.maxPageBytes ?? DEFAULTS.maxPageBytes;
  const isUrl = /^https?:\/\//i.test(dirOrUrl);
  if (isUrl && options.site !== undefined)
    throw new SiegelError(
      'invalid_options',
      '`site` is for a directory: a URL is checked at the address it is served at',
    );
  for (const name of ['userAgent', 'checkCloaking'] as const)
    if (!isUrl && options[name] !== undefined)
      throw new SiegelError(
        'invalid_options',
        `\`${name}\` is for a URL: a directory's pages are read from disk`,
      );
  if (options.userAgent !== undefined && !/^[\x20-\x7e]+$/.test(options.userAgent))
    throw new SiegelError(
      'invalid_options',
      `The User-Agent must be printable ASCII, got \`${options.userAgent}\``,
    );
  const site = options.site === undefined ? undefined : pageUrl(options.site, '');
  // A directory that is not there is a usage error, worded as for signing.
  if (!isUrl) await requireDirectory(resolve(dirOrUrl));
  const source = isUrl
    ? urlSource(dirOrUrl, options, { maxPageBytes, selector })
    : dirSource(resolve(dirOrUrl), {
        maxPageBytes,
        site,
        selector,
        parseWorkers: options.parseWorkers ?? defaultParseWorkers(),
      });
  const { policy } = options;
  // With a policy, the policy judges each hint's address when it is connected to (not its name as text).
  const relayHintAllowed = policy
    ? () => true
    : allowRelayHintsFrom(isUrl ? new URL(dirOrUrl).hostname : undefined);
  const crypto = await loadSigningEngine();
  const context: PageCheckContext = {
    selector,
    expected: {
      ...(expectedPubkey ? { pubkey: expectedPubkey } : {}),
      ...(options.signer ? { nip05: options.signer } : {}),
    },
    checks: {
      computeId: (event) => computeEventId(event),
      verifySignature: (event) => verifyEventSignature(crypto, event),
    },
  };
  const relayLookup = lookupOnRelays(crypto, extraRelays, relayHintAllowed, {
    timeoutMs: options.relayTimeoutMs,
    policy,
  });
  const validEvent = soundEvents(crypto);
  const gatherManifest = createManifestEvidence({
    relays: extraRelays,
    hintAllowed: relayHintAllowed,
    ask: (relay, filter) =>
      queryRelay(relay, filter, {
        accept: validEvent,
        maxEvents: 10,
        timeoutMs: options.relayTimeoutMs ?? RELAY_QUERY_DEFAULTS.timeoutMs,
        ...(policy ? { policy } : {}),
      }),
    valid: validEvent,
    readSiteFile: (path, page, siteUrl) => source.readSiteFile(path, page, siteUrl),
    // A layout-blob manifest's path list the site does not hold: from its `server` tags, each taken only
    // by Blossom's URL rule (https, or http on loopback), the length bounded by what the manifest names
    // and by the page limit, the time by the request timeout; the gatherer checks the hash.
    readBlob: async (server, sha256, bytes) => {
      const [url] = parseBlossomServers([server], 'the manifest’s `server` tag');
      if (url === undefined || bytes > maxPageBytes) throw new Error('not fetched');
      const timeoutMs = options.requestTimeoutMs ?? SITE_CLIENT_DEFAULTS.requestTimeoutMs;
      if (!policy) return getBlob(url, sha256, bytes, { timeoutMs });
      // Under a policy, through the careful client: its host judged, no redirect followed.
      const client = new SiteClient({
        site: new URL(url),
        policy,
        maxRedirects: 0,
        totalTimeoutMs: timeoutMs,
      });
      const response = await client.get(new URL(`${url}/${sha256}`), { maxBytes: bytes, accept: '*/*' });
      if (!response.body) throw new Error(`GET /${sha256} answered HTTP ${response.status}`);
      return response.body;
    },
    sha256: (bytes) => createHash('sha256').update(bytes).digest('hex'),
    // What a reader runs to check the page is the author's too, and a module-based page's chunks: each
    // read once per run (a URL: fetched by the same careful client; a directory: from disk).
    alsoCheck: verifyFilesOf,
    chunks: true,
  });
  const pages: PageVerification[] = [];
  let skipped = 0;
  let progress: ProgressLine | undefined;
  try {
    for await (const page of source.pages()) {
      // The source knows how many pages come once it yields the first (a directory: after listing it).
      progress ??= createProgressLine(source.total?.() ?? 0, {
        enabled: options.progress ?? process.stderr.isTTY === true,
      });
      progress.tick();
      if ('problem' in page) {
        pages.push(unreadPage(page));
        continue;
      }
      const block = page.reading.signatureBlock;
      if (!block && page.reading.hash === undefined) {
        skipped++;
        continue;
      }
      let event: EventEvidence | undefined;
      let eventFrom: string | undefined;
      if (block?.eventId) {
        const eventId = block.eventId;
        const loaded = await source
          .loadEvent(eventId, block.verifyUrl, page.name)
          .catch(async (error: Error) =>
            error instanceof MissingEvent
              ? relayLookup(eventId, block.relays ?? []).catch(
                  (miss: Error) => new MissingEvent(`${error.message}; ${miss.message}`),
                )
              : error,
          );
        const expired = source.expired?.();
        if (expired) throw expired;
        if (loaded instanceof MissingEvent) event = { missing: loaded.message };
        else if (loaded instanceof Error) event = { malformed: loaded.message };
        else {
          event = { found: loaded.event, from: loaded.from };
          eventFrom = loaded.from;
        }
      }
      const manifest =
        event && 'found' in event
          ? await gatherManifest(
              event.found,
              block?.relays ?? [],
              page.name,
              page.bytes(),
              // The site is where the event file's verify/ is (a page deep in a site, crawled from there).
              eventFrom?.replace(/verify\/[0-9a-f]{64}\.json$/, ''),
              page.origin ? { ...page.origin, loads: page.reading.loads } : undefined,
            )
          : undefined;
      const expiredNow = source.expired?.();
      if (expiredNow) throw expiredNow;
      const verification = checkPage(
        page,
        block,
        {
          ...(event ? { event } : {}),
          ...(eventFrom ? { eventFrom } : {}),
          ...(manifest ? { manifest } : {}),
        },
        context,
      );
      pages.push(verification);
      observe?.({ page, verification, event, manifest });
    }
  } finally {
    // Cleared before the report is printed, also when the check stops early.
    progress?.done();
  }
  const count = (verdict: Verdict) => pages.filter((page) => page.verdict === verdict).length;
  const report = {
    valid: count('valid'),
    invalid: count('invalid'),
    notFound: count('not_found'),
    unsigned: pages.filter((page) => page.problems.some((problem) => problem.code === 'block.missing'))
      .length,
    skipped,
    pages,
  };
  return { ok: report.valid > 0 && report.valid === pages.length, ...report };
}

/** The pinned signer: `pubkey`, or the key `signer` resolves to by NIP-05 (both given: they must agree). */
async function readExpectedSigner(
  pubkey: string | undefined,
  options: VerifySiteOptions,
): Promise<string | undefined> {
  if (options.signer === undefined) return pubkey;
  const resolved = await resolveNip05(options.signer, {
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    ...(options.policy ? { policy: options.policy } : {}),
  });
  if (pubkey !== undefined && pubkey !== resolved)
    throw new SiegelError(
      'invalid_options',
      `The expected pubkey \`${pubkey}\` is not the key of \`${options.signer}\` by NIP-05 (\`${resolved}\`)`,
    );
  return resolved;
}

function parsePubkey(value: string): string {
  const trimmed = value.trim();
  if (HEX64.test(trimmed.toLowerCase())) return trimmed.toLowerCase();
  try {
    const decoded = decode(trimmed);
    if (decoded.type === 'npub') return decoded.data;
  } catch {}
  throw new SiegelError(
    'invalid_options',
    `The expected pubkey \`${value}\` is neither 64 hex characters nor an npub`,
  );
}
