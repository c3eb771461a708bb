// verify/ owns everything a reader uses to check a signed site: the verify pages written beside it
// (verify-output.ts writes `verify/{id}/index.html` and `verify/{id}.json`, verify-page.ts renders them),
// the browser script they run (script/main.ts, bundled with esbuild from the same page/ code the signer
// uses), and `verifySite` here, which checks a directory or a live site from Node (`siegel verify`).
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { decode } from 'nostr-tools/nip19';
import { SiegelError } from '../errors.js';
import { findPages } from '../fs/find-pages.js';
import { SITE_CLIENT_DEFAULTS, SiteClient } from '../net/site-client.js';
import { computeEventId, HEX64, loadSigningEngine, type SigningEngine } from '../nostr/crypto.js';
import { describeRelayMiss, fetchEventFromRelays, RELAY_QUERY_DEFAULTS } from '../nostr/relay-query.js';
import { allowRelayHintsFrom, parseRelays, pickRelayHints } from '../nostr/relays.js';
import { verifyEventSignature } from '../nostr/verify-signature.js';
import { DEFAULTS } from '../options/options.js';
import { analyzePage } from '../page/analyze.js';
import type { Refusal } from '../page/coverage.js';
import { checkEncoding } from '../page/encoding.js';
import { pageUrl } from '../page/page-event.js';
import type { PageSpec } from '../page/parse.js';
import { describeByteSize, formatByteSize } from '../text/byte-size.js';
import { resolveNip05 } from './nip05.js';
import {
  createProblem,
  decideVerdict,
  describeCoverage,
  type EventChecks,
  type EventEvidence,
  judgePage,
  PROBLEM_CODES,
  type Problem,
  type ProblemCode,
  type Verdict,
} from './rules.js';

/**
 * Largest event file (`verify/{id}.json`) read, in bytes: 1 MiB. A page event holds a title, a description,
 * a URL and hashes; the bunker signs none over 768 KiB.
 */
const MAX_EVENT_BYTES = 1024 * 1024;

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
   * Relays to ask for an event whose `verify/{id}.json` is missing, besides the `nevent` hints of the page's
   * block (default none): `wss://` URLs, `ws://` only on a loopback host (`parseRelays`).
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
}

/** One page's result: the rule book's verdict and problems, and what was found against what was expected. */
export interface PageVerification {
  /** Path relative to the directory, or the URL. */
  page: string;
  /** `valid`, `invalid` or `not_found` (the event or the page could not be loaded: an outage). */
  verdict: Verdict;
  /** Errors, then warnings, each with a stable code (`docs/verification.md`); empty when clean. */
  problems: Problem[];
  /** What the page and its event say. */
  found: { hash?: string; eventId?: string; pubkey?: string; eventHash?: string };
  /** What the check expects: the hash recomputed from the page now, the expected signer if one was given. */
  expected: { hash?: string; pubkey?: string };
  /** The spec the page was checked by: the one its event was signed under (`siegel-page/1` for events without a `spec` tag). */
  spec?: string;
  /** Where the event was read: `verify/{id}.json`, its URL, or the relay it came from (`wss://…`). */
  eventFrom?: string;
  /** The address the page was compared as: the URL it was fetched at, or `site` joined with its path. */
  address?: string;
}

/**
 * The result of {@link verifySite}. `ok` is true when at least one page was judged and every judged page is
 * valid (warnings allowed). `unsigned` counts the invalid pages that carry no block at all; `skipped` the
 * pages with neither the element nor a block (not judged, not in `pages`).
 */
export interface VerifyReport {
  ok: boolean;
  valid: number;
  invalid: number;
  notFound: number;
  unsigned: number;
  skipped: number;
  pages: PageVerification[];
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
 * the site's own.
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
export async function verifySite(dirOrUrl: string, options: VerifySiteOptions = {}): Promise<VerifyReport> {
  const pinned = options.pubkey === undefined ? undefined : parsePubkey(options.pubkey);
  const extraRelays = parseRelays(options.relays ?? [], '--relay');
  const expectedPubkey = await readExpectedSigner(pinned, options);
  const selector = options.selector ?? 'main';
  const maxPageBytes = options.maxPageBytes ?? DEFAULTS.maxPageBytes;
  const isUrl = /^https?:\/\//i.test(dirOrUrl);
  if (isUrl && options.site !== undefined)
    throw new SiegelError(
      'invalid_options',
      '`site` is for a directory: a URL is checked at the address it is served at',
    );
  const site = options.site === undefined ? undefined : pageUrl(options.site, '');
  const source = isUrl
    ? urlSource(dirOrUrl, options, maxPageBytes)
    : dirSource(resolve(dirOrUrl), maxPageBytes, site);
  const crypto = await loadSigningEngine();
  const checks: EventChecks = {
    computeId: (event) => computeEventId(event),
    verifySignature: (event) => verifyEventSignature(crypto, event),
  };
  const relayLookup = lookupOnRelays(crypto, extraRelays, source.relayHintAllowed, options.relayTimeoutMs);
  const expected = {
    ...(expectedPubkey ? { pubkey: expectedPubkey } : {}),
    ...(options.signer ? { nip05: options.signer } : {}),
  };
  const pages: PageVerification[] = [];
  let skipped = 0;
  for await (const page of source.pages()) {
    if ('problem' in page) {
      // Not read (too large, refused, too slow): not verified.
      const problems = [createProblem(page.code, page.problem)];
      pages.push({ page: page.name, verdict: decideVerdict(problems), problems, found: {}, expected: {} });
      continue;
    }
    const first = analyzePage(page.html, { selector });
    const block = first.signatureBlock;
    if (!block && first.hash === undefined) {
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
    // A page a browser would not decode as UTF-8 is not verifiable, whatever its element (page/encoding.ts).
    const read = (spec: PageSpec) =>
      spec === first.spec ? first : analyzePage(page.html, { selector, spec });
    const judgement = judgePage({
      selector,
      readPage: (spec) => {
        const reading = read(spec);
        return { hash: reading.hash, refusal: page.encoding ?? reading.refusal };
      },
      block,
      ...(event ? { event } : {}),
      address: page.address,
      expected,
      checks,
    });
    const eventHash = judgement.event?.tags.find((tag) => tag[0] === 'x')?.[1];
    pages.push({
      page: page.name,
      verdict: judgement.verdict,
      problems: judgement.problems,
      found: {
        ...(block?.hash ? { hash: block.hash } : {}),
        ...(block?.eventId ? { eventId: block.eventId } : {}),
        ...(judgement.event
          ? { pubkey: judgement.event.pubkey }
          : block?.pubkey
            ? { pubkey: block.pubkey }
            : {}),
        ...(eventHash ? { eventHash } : {}),
      },
      expected: {
        ...((judgement.hash ?? first.hash) ? { hash: judgement.hash ?? first.hash } : {}),
        ...(expectedPubkey ? { pubkey: expectedPubkey } : {}),
      },
      ...(judgement.spec ? { spec: judgement.spec } : {}),
      ...(eventFrom ? { eventFrom } : {}),
      ...(page.address ? { address: page.address } : {}),
    });
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

/**
 * Text for people: one line per page that is not valid (every page when `verbose`), each warning
 * code once with the number of pages it concerns, then the counts. Under a judged page, `signed hash` (the block's, with its event and pubkey)
 * stands above `page hash now` (recomputed from the page, with the expected signer when one was given);
 * each problem follows with its code.
 *
 * @example
 * ```ts
 * console.log(formatVerifyReport(await verifySite('dist')));
 * ```
 */
export function formatVerifyReport(
  report: VerifyReport,
  options: { verbose?: boolean; selector?: string } = {},
): string {
  const lines: string[] = [];
  for (const page of report.pages) {
    if (!options.verbose && page.verdict === 'valid') continue;
    const label = page.verdict === 'not_found' ? 'NOT FOUND' : page.verdict.toUpperCase();
    lines.push(`${label.padEnd(9)} ${page.page}${page.spec ? `  (${page.spec})` : ''}`);
    const read = Object.keys(page.found).length + Object.keys(page.expected).length > 0;
    if (read) {
      // The block's hash (what was signed) against the hash recomputed from the page now, aligned.
      lines.push(
        `  signed hash   ${page.found.hash ?? '-'}  event ${page.found.eventId ?? '-'}  pubkey ${page.found.pubkey ?? '-'}`,
      );
      lines.push(
        `  page hash now ${page.expected.hash ?? '-'}${page.expected.pubkey ? `  expected signer ${page.expected.pubkey}` : ''}`,
      );
    }
    if (options.verbose && page.eventFrom) lines.push(`  event from ${page.eventFrom}`);
    for (const problem of page.problems)
      lines.push(
        `  ${problem.severity === 'warning' ? 'warning' : '-'} ${problem.message} [${problem.code}]`,
      );
  }
  // Warnings leave pages valid: counted once per code (they tend to hold for the whole site), listed per page
  // in verbose output.
  const warned = new Map<ProblemCode, number>();
  for (const page of report.pages)
    for (const code of new Set(page.problems.filter((p) => p.severity === 'warning').map((p) => p.code)))
      warned.set(code, (warned.get(code) ?? 0) + 1);
  for (const [code, count] of warned)
    lines.push(`warning: ${count} page${count === 1 ? '' : 's'}: ${PROBLEM_CODES[code].meaning} [${code}]`);
  // What "valid" means, once, for whoever reads the whole list.
  if (options.verbose && report.valid > 0) lines.push(describeCoverage(options.selector));
  lines.push(
    `Siegel verify: ${report.valid} valid, ${report.invalid} invalid${report.unsigned > 0 ? ` (${report.unsigned} unsigned)` : ''}, ${report.notFound} not found, ${report.skipped} skipped (no element)`,
  );
  return lines.join('\n');
}

/**
 * The report as JSON for tools (`siegel verify --json`): the counts and, per judged page, its verdict and
 * problems with their codes.
 */
export function formatVerifyReportJson(report: VerifyReport): string {
  return JSON.stringify(report, null, 2);
}

/** The pinned signer: `pubkey`, or the key `signer` resolves to by NIP-05 (both given: they must agree). */
async function readExpectedSigner(
  pubkey: string | undefined,
  options: VerifySiteOptions,
): Promise<string | undefined> {
  if (options.signer === undefined) return pubkey;
  const resolved = await resolveNip05(options.signer, {
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
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

function safeEventHash(event: NostrEvent): string | undefined {
  try {
    return computeEventId(event);
  } catch {
    return undefined;
  }
}

/** A page of a source: its HTML and the address it is judged at, or why it could not be read. */
type SourcePage =
  | { name: string; html: string; encoding: Refusal | undefined; address: string | undefined }
  | { name: string; problem: string; code: 'page.too_large' | 'page.unavailable' };

/** An event as read (its shape is the rule book's to judge) and where it was read. */
type LoadedEvent = { event: unknown; from: string };

/** The event file is not there (no file, HTTP 404/410): the event may still be on a relay. */
class MissingEvent extends Error {}

interface Source {
  pages(): AsyncIterable<SourcePage>;
  loadEvent(id: string, verifyUrl: string | undefined, page: string): Promise<LoadedEvent>;
  /** The error that ends the whole check (its time ran out), once there is one. */
  expired?(): Error | undefined;
  /** Whether a relay hint read from a page of this source may be asked (see `allowRelayHintsFrom`). */
  relayHintAllowed(relay: string): boolean;
}

/**
 * Looks an event up on relays: the block's `nevent` hints (at most 5 valid ones the source allows, by
 * `pickRelayHints`) and the `--relay` ones. Only an event with the asked id, a matching id hash and a valid
 * signature counts; the page's own checks (x tag, pubkey, spec) follow as for a local event. A relay that
 * could not be reached is not asked again in this check.
 * @throws {Error} `event not found on relays …`, naming each relay and what it said.
 */
function lookupOnRelays(
  crypto: SigningEngine,
  extra: string[],
  hintAllowed: (relay: string) => boolean,
  timeoutMs: number = RELAY_QUERY_DEFAULTS.timeoutMs,
): (id: string, hints: string[]) => Promise<LoadedEvent> {
  const unreachable = new Map<string, string>();
  const accept = (event: NostrEvent) =>
    safeEventHash(event) === event.id && verifyEventSignature(crypto, event);
  return async (id, hints) => {
    const relays = pickRelayHints(hints, hintAllowed);
    for (const relay of extra) if (!relays.includes(relay)) relays.push(relay);
    if (relays.length === 0)
      throw new Error(
        hints.length === 0
          ? "event not found: no relay to ask (the block's nevent names none; add `--relay`)"
          : "event not found: no relay to ask (the block's nevent names none that may be asked: a hint read from a page must be a wss:// relay on a public host; add `--relay`)",
      );
    const found = await fetchEventFromRelays(
      id,
      relays.filter((relay) => !unreachable.has(relay)),
      { accept, timeoutMs },
    );
    if (found.event) return { event: found.event, from: found.relay };
    for (const answer of found.answers)
      if (answer.error && answer.events.length === 0) unreachable.set(answer.relay, answer.error);
    const skipped = relays
      .filter((relay) => unreachable.has(relay) && !found.answers.some((a) => a.relay === relay))
      .map((relay) => ({ relay, events: [], rejected: 0, error: unreachable.get(relay) as string }));
    throw new Error(describeRelayMiss([...found.answers, ...skipped]));
  };
}

function tooLarge(size: number, limit: number): string {
  return `page too large: ${describeByteSize(size)}, more than the limit of ${describeByteSize(limit)}; not checked — raise it with \`--max-page-bytes\``;
}

function dirSource(dir: string, maxPageBytes: number, site: string | undefined): Source {
  return {
    relayHintAllowed: allowRelayHintsFrom(undefined),
    async *pages() {
      for (const path of await findPages(dir)) {
        const size = (await stat(join(dir, path))).size;
        if (size > maxPageBytes)
          yield { name: path, problem: tooLarge(size, maxPageBytes), code: 'page.too_large' };
        else {
          // A directory has no HTTP header: the bytes alone say how a browser decodes them.
          const bytes = await readFile(join(dir, path));
          yield {
            name: path,
            html: bytes.toString('utf8'),
            encoding: checkEncoding(bytes),
            address: site === undefined ? undefined : pageUrl(site, path),
          };
        }
      }
    },
    async loadEvent(id) {
      if (!HEX64.test(id)) throw new Error(`event id \`${id}\` is not 64 hex characters`);
      const file = join(dir, 'verify', `${id}.json`);
      let text: string;
      try {
        if ((await stat(file)).size > MAX_EVENT_BYTES)
          throw new Error(
            `event file \`verify/${id}.json\` is larger than ${formatByteSize(MAX_EVENT_BYTES)}`,
          );
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === undefined) throw error;
        throw new MissingEvent(`event file \`verify/${id}.json\` is missing`);
      }
      try {
        return { event: JSON.parse(text) as unknown, from: `verify/${id}.json` };
      } catch (error) {
        throw new Error(`event file \`verify/${id}.json\` is not valid: ${(error as Error).message}`);
      }
    },
  };
}

function urlSource(start: string, options: VerifySiteOptions, maxPageBytes: number): Source {
  const root = new URL(start);
  const scope = root.pathname.endsWith('/') ? root.pathname : root.pathname.replace(/[^/]*$/, '');
  const maxPages = options.maxPages ?? 1000;
  const client = new SiteClient({
    site: root,
    allowRedirectsTo: options.allowRedirectsTo ?? [],
    maxRedirects: options.maxRedirects ?? SITE_CLIENT_DEFAULTS.maxRedirects,
    requestTimeoutMs: options.requestTimeoutMs ?? SITE_CLIENT_DEFAULTS.requestTimeoutMs,
    totalTimeoutMs: options.totalTimeoutMs ?? SITE_CLIENT_DEFAULTS.totalTimeoutMs,
  });
  const isHtml = (type: string | undefined) => (type ?? '').includes('text/html');
  return {
    relayHintAllowed: allowRelayHintsFrom(root.hostname),
    async *pages() {
      const queue: URL[] = [root];
      const seen = new Set<string>([root.href]);
      let visited = 0;
      while (queue.length > 0 && visited < maxPages) {
        const url = queue.shift() as URL;
        let response: Awaited<ReturnType<SiteClient['get']>>;
        try {
          response = await client.get(url, {
            maxBytes: maxPageBytes,
            accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
            wantBody: (headers) => isHtml(headers['content-type']),
          });
        } catch (error) {
          // The start page and the check's time are the run's; any other page fails alone.
          if (visited === 0 || client.expired) throw client.expired ?? error;
          visited++;
          const problem = (error as Error).message;
          yield {
            name: url.href,
            problem,
            code: /more than/.test(problem) ? 'page.too_large' : 'page.unavailable',
          };
          continue;
        }
        if (response.status < 200 || response.status >= 300) {
          if (visited === 0)
            throw new SiegelError('io_error', `\`${url.href}\` answered HTTP ${response.status}`);
          continue;
        }
        if (!response.body) continue; // not HTML
        visited++;
        const html = response.body.toString('utf8');
        // The `Content-Type` charset outranks the page's own `<meta>`, as in a browser.
        const encoding = checkEncoding(response.body, { contentType: response.headers['content-type'] });
        yield { name: response.url.href, html, encoding, address: response.url.href };
        for (const match of html.matchAll(/\bhref\s*=\s*["']?([^"'\s>]+)/gi)) {
          let link: URL;
          try {
            link = new URL((match[1] as string).replace(/&amp;/g, '&'), response.url);
          } catch {
            continue;
          }
          link.hash = '';
          link.search = '';
          if (link.origin !== root.origin || !link.pathname.startsWith(scope)) continue;
          if (link.pathname.startsWith(`${scope}verify/`)) continue;
          if (/\.(?!html?$)[a-z0-9]{1,5}$/i.test(link.pathname)) continue; // assets
          if (seen.has(link.href)) continue;
          seen.add(link.href);
          queue.push(link);
        }
      }
    },
    async loadEvent(id, verifyUrl, page) {
      if (!HEX64.test(id)) throw new Error(`event id \`${id}\` is not 64 hex characters`);
      // The block's link may name the production host: load the event from the host being checked.
      let path = `${scope}verify/${id}`;
      try {
        const linked = new URL(verifyUrl ?? '').pathname.replace(/\/+$/, '');
        if (linked.endsWith(`/verify/${id}`)) path = linked;
      } catch {}
      const url = new URL(`${path}.json`, new URL(page));
      let response: Awaited<ReturnType<SiteClient['get']>>;
      try {
        response = await client.get(url, { maxBytes: MAX_EVENT_BYTES, accept: 'application/json' });
      } catch (error) {
        // Not loaded (network, time, size): an outage — the event may still be on a relay.
        throw new MissingEvent(`event \`${url.href}\` could not be loaded: ${(error as Error).message}`);
      }
      // 404/410 or a server error: not there now, which is not the same as altered; relays are asked next.
      if (response.status < 200 || response.status >= 300 || !response.body)
        throw new MissingEvent(`event \`${url.href}\` answered HTTP ${response.status}`);
      try {
        return {
          event: JSON.parse(response.body.toString('utf8')) as unknown,
          from: url.href,
        };
      } catch (error) {
        throw new Error(`event \`${url.href}\` is not valid: ${(error as Error).message}`);
      }
    },
    expired: () => client.expired,
  };
}
