// What a verifier finds about a page's site manifest for the rule book (manifest-rules.ts decides): the
// newest manifest for the event's `a` address from the verifier's own relays (`siegel verify`: `--relay`,
// `SIEGEL_RELAYS`; the verify page: its default list) and the key's NIP-65 write relays found there, plus —
// only adding — the page's relay hints and the site's copy (`verify/manifest.json`); a blob layout's tag
// list, read from the site or else from the manifest's `server` tags (BUD-01), hash-checked; and the hashes of the same-site files the page depends on, each
// read once per run. The one gathering for `siegel verify` (verify-site.ts: `ws` relays, the source's files)
// and the browser verify script (script/main.ts: the browser's WebSocket and fetch), which pass their I/O.
// Pure otherwise: no Node built-ins.
import type { NostrEvent } from 'nostr-tools/core';
import { readManifestBlob } from '../manifest/manifest-layout.js';
import {
  type ManifestPage,
  newestManifest,
  parseManifestAddress,
  readManifest,
  type SiteManifest,
} from '../manifest/site-manifest.js';
import { isEventShape } from '../nostr/event-shape.js';
import type { RelayAnswer } from '../nostr/relay-query-portable.js';
import { pickRelayHints } from '../nostr/relays.js';
import { type PageOrigin, readPageFacts } from '../page/page-facts.js';
import { CURRENT_SPEC, parseDocument } from '../page/parse.js';
import { createManifestLookups, type Lookup, type ManifestLookupIo } from './manifest-lookup.js';
import { type AssetFinding, type ManifestEvidence, sameSiteLoadPaths } from './manifest-rules.js';

/** Blossom servers of a manifest's `server` tags tried for its blob, at most (each silent one costs its timeout). */
const MAX_BLOB_SERVERS = 3;
/** The verify script every verify page runs, pinned by the manifest like any file. */
const VERIFY_SCRIPT_PATH = '/verify/siegel-verify.js';

/** The verifier's I/O and choices, for {@link createManifestEvidence}. */
export interface ManifestEvidenceIo extends ManifestLookupIo {
  /** The id and signature check for an event read from the site. */
  valid(event: NostrEvent): boolean;
  /**
   * The bytes of the site's file at manifest path `path` (`/assets/a.js`) for the site `page` belongs to
   * (`siteUrl`: its manifest's `url`). @throws naming the file when it cannot be read.
   */
  readSiteFile(path: string, page: string, siteUrl: string | undefined): Promise<Uint8Array>;
  sha256(bytes: Uint8Array): string | Promise<string>;
  /**
   * A layout-blob manifest's path list from a Blossom server of its `server` tags (BUD-01 `GET /<sha256>`),
   * read up to `bytes` (the length the manifest names): asked only when the site has no good copy. Default:
   * not asked. @throws when the server does not give it.
   */
  readBlob?(server: string, sha256: string, bytes: number): Promise<Uint8Array>;
  /** Files besides the page's loads to hash (`siegel verify <url>`: {@link verifyFilesOf}; default none). */
  alsoCheck?: (eventId: string) => string[];
  /** On a module-based page, also every `.js`/`.mjs` of the manifest (a client-side router renders from any). */
  chunks: boolean;
}

/** A page's loads as its reading found them against `address` and `siteUrl` (reused when those match). */
export interface KnownLoads extends PageOrigin {
  loads: string[];
}

/** One page's gathering: its event, relay hints, address and bytes (or their promise), where its event file was. */
export type ManifestGatherCall = (
  event: unknown,
  hints: string[],
  page: string,
  bytes: Uint8Array | PromiseLike<Uint8Array>,
  siteGuess?: string,
  /** The page's loads as its reading found them, or their promise (a caller reads the page meanwhile). */
  known?: KnownLoads | PromiseLike<KnownLoads | undefined>,
) => Promise<ManifestEvidence | undefined>;

/** A gathering's call per page, and `lookAhead` to start a manifest address's lookup before any event is read. */
export type ManifestGathering = ManifestGatherCall & { lookAhead(a: string): void };

/**
 * A gatherer of {@link ManifestEvidence} for the pages of one check: relay lookups per manifest address and
 * file hashes per path are done once per run and shared by every page.
 *
 * @example
 * ```ts
 * const gather = createManifestEvidence({ relays, hintAllowed, ask, valid, readSiteFile, sha256, chunks: true });
 * const manifest = await gather(event, block.relays ?? [], page.name, page.bytes(), siteUrl);
 * ```
 */
export function createManifestEvidence(io: ManifestEvidenceIo): ManifestGathering {
  const options = io;
  const valid = (event: NostrEvent) => {
    try {
      return io.valid(event);
    } catch {
      return false;
    }
  };
  const lookups = createManifestLookups(io);
  const files = new Map<string, Promise<AssetFinding>>();
  const manifests = new Map<string, Promise<SiteManifest | undefined>>();
  const siteCopies = new Map<string, Promise<NostrEvent | undefined>>();

  /** The manifest an event states, its blob's tags read when it has one; `undefined` when unreadable. */
  const read = (event: NostrEvent, page: string) => {
    let manifest = manifests.get(event.id);
    if (!manifest) {
      manifest = (async () => {
        try {
          const first = readManifest(event);
          if (first.blob === undefined) return first;
          const blob = first.blob;
          const path = `/verify/manifest-${blob.sha256}.json`;
          // The site's file, else each `server` tag's Blossom server: hash-checked either way, so where the
          // bytes come from does not matter; the first good copy wins.
          const sources = [
            () => io.readSiteFile(path, page, first.siteUrl),
            ...first.servers
              .slice(0, MAX_BLOB_SERVERS)
              .map((server) => () => io.readBlob?.(server, blob.sha256, blob.bytes) ?? Promise.reject()),
          ];
          for (const source of sources) {
            try {
              return readManifest(event, readManifestBlob(await source(), blob));
            } catch {}
          }
          return undefined;
        } catch {
          return undefined;
        }
      })();
      manifests.set(event.id, manifest);
    }
    return manifest;
  };

  /** The site's own copy, `verify/manifest.json`: proves nothing about currency, names old pages' assets. */
  const siteCopy = (page: string, siteUrl: string | undefined) => {
    const key = siteUrl ?? '';
    let copy = siteCopies.get(key);
    if (!copy) {
      copy = io.readSiteFile('/verify/manifest.json', page, siteUrl).then(
        (bytes) => {
          const event = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
          return isEventShape(event) && valid(event) ? event : undefined;
        },
        () => undefined,
      );
      siteCopies.set(key, copy);
    }
    return copy;
  };

  /** The files a page named by `manifest` depends on: its recorded loads, `alsoCheck`'s, its chunks. */
  const filesToHash = (manifest: SiteManifest, named: ManifestPage, eventId: string, modules: boolean) => {
    const paths = [...sameSiteLoadPaths(named.loads), ...(io.alsoCheck?.(eventId) ?? [])];
    if (modules) paths.push(...scriptsOf(manifest));
    return [...new Set(paths)];
  };
  /** A manifest's scripts, listed once per manifest (not once per page: a site has thousands of each). */
  const scripts = new WeakMap<SiteManifest, string[]>();
  const scriptsOf = (manifest: SiteManifest) => {
    const list = scripts.get(manifest) ?? [...manifest.files.keys()].filter((path) => /\.m?js$/i.test(path));
    scripts.set(manifest, list);
    return list;
  };

  /** A same-site file's hash, read once per run (per site: a moved site's manifests name another). */
  const hashFile = (path: string, page: string, siteUrl: string | undefined) => {
    const key = `${siteUrl ?? ''} ${path}`;
    let finding = files.get(key);
    if (!finding) {
      finding = io.readSiteFile(path, page, siteUrl).then(
        async (bytes) => ({ path, sha256: await io.sha256(bytes) }),
        (error: Error) => ({ path, sha256: undefined, why: error.message }),
      );
      files.set(key, finding);
    }
    return finding;
  };

  const gather: ManifestGatherCall = async (found, hints, page, bytes, siteGuess, known) => {
    if (!isEventShape(found)) return undefined;
    const event = found;
    const a = event.tags.find((tag) => tag[0] === 'a')?.[1];
    const address = a === undefined ? undefined : parseManifestAddress(a);
    if (a === undefined || address === undefined || address.pubkey !== event.pubkey)
      return { newest: undefined, answered: [], pageNamed: undefined };
    // The verifier's relays and the page's hints at once (a reader waits for the slowest); the hints only
    // add: a newer manifest there still proves the page old.
    const hinted = pickRelayHints(hints, options.hintAllowed).filter(
      (relay) => !options.relays.includes(relay),
    );
    // The page's text, and the files each manifest names for it: worked out once per page, for the early
    // start below and the end of the gathering alike.
    let html: Promise<string> | undefined;
    const text = () => (html ??= Promise.resolve(bytes).then((served) => new TextDecoder().decode(served)));
    const pathLists = new Map<SiteManifest, Promise<string[]>>();
    const filesOf = (manifest: SiteManifest, named: ManifestPage) => {
      const paths =
        pathLists.get(manifest) ??
        text().then((served) => filesToHash(manifest, named, event.id, io.chunks && isModuleBased(served)));
      pathLists.set(manifest, paths);
      return paths;
    };
    // The site's copy where the event file was read starts with the lookups, and the files the page depends
    // on by that copy start being hashed: in the common case the newest manifest names the same site and
    // the same files, each read once per run whichever manifest names it — the reader waits for one round
    // of relays instead of relays, then the site, then the files. Nothing waits on this early start.
    const guessed = siteGuess === undefined ? undefined : siteCopy(page, siteGuess);
    guessed
      ?.then(async (copy) => {
        const manifest = copy && (await read(copy, page));
        const named = manifest?.pagesByEvent.get(event.id);
        if (manifest && named)
          for (const path of await filesOf(manifest, named))
            hashFile(path, page, manifest.siteUrl).catch(() => undefined);
      })
      .catch(() => undefined);
    const [lookup, hintAnswers] = await Promise.all([
      lookups.lookUp(a, address),
      Promise.all(hinted.map((relay) => lookups.askHint(a, address, relay))),
    ]);
    const ownEvents = lookup.found;
    // The site's copy is beside the site's verify/: where the newest manifest says the site is, else where
    // the page's event file was read (`siteGuess`).
    const ownSite = newestManifest(ownEvents)?.tags.find((tag) => tag[0] === 'url')?.[1];
    const copy = await (ownSite === undefined || sameUrl(ownSite, siteGuess)
      ? (guessed ?? siteCopy(page, undefined))
      : siteCopy(page, ownSite));
    const all = [...ownEvents, ...hintAnswers.flatMap((answer) => answer.events), ...(copy ? [copy] : [])];
    const candidates = all.filter((candidate) => candidate.pubkey === event.pubkey);
    const newestEvent = newestManifest(candidates);
    const ownEvent = newestManifest(ownEvents.filter((candidate) => candidate.pubkey === event.pubkey));
    const newest = newestEvent ? await read(newestEvent, page) : undefined;
    const fromOwnRelays = ownEvent ? await read(ownEvent, page) : undefined;
    let pageNamed: SiteManifest | undefined;
    for (const candidate of [...candidates].sort((x, y) => y.created_at - x.created_at)) {
      const manifest = await read(candidate, page);
      if (manifest?.pagesByEvent.has(event.id)) {
        pageNamed = manifest;
        break;
      }
    }
    const evidence: ManifestEvidence = { newest, answered: lookup.answered, fromOwnRelays, pageNamed };
    if (lookup.answered.length === 0)
      evidence.why = describeUnchecked(options.relays, lookup, hintAnswers, copy);
    const named = pageNamed?.pagesByEvent.get(event.id);
    if (pageNamed && named) {
      const siteUrl = pageNamed.siteUrl;
      // The page's bytes are needed only here: a caller may start the gathering before they have come.
      evidence.pageSha256 = await io.sha256(await bytes);
      // The page's loads against where it was signed (event `url`, manifest site URL): a mirror reads the same.
      const address = event.tags.find((tag) => tag[0] === 'url')?.[1];
      if (siteUrl !== undefined && address !== undefined) {
        const loads = await known;
        if (loads?.address === address && loads.siteUrl === siteUrl) evidence.loads = loads.loads;
        else {
          const { document } = parseDocument(await text(), { spec: CURRENT_SPEC });
          evidence.loads = readPageFacts(await text(), document, CURRENT_SPEC, { address, siteUrl }).loads;
        }
      }
      // What the page loads now that the manifest does not record is judged from the loads; its bytes too.
      const paths = await filesOf(pageNamed, named);
      evidence.assets = await Promise.all(paths.map((path) => hashFile(path, page, siteUrl)));
    }
    return evidence;
  };
  return Object.assign(gather, { lookAhead: lookups.lookAhead });
}

/** Whether two site URLs name the same place (as URLs: `https://a.example` is `https://a.example/`). */
function sameUrl(a: string, b: string | undefined): boolean {
  return b !== undefined && URL.canParse(a) && URL.canParse(b) && new URL(a).href === new URL(b).href;
}

/**
 * The files `siegel verify <url>` also checks for a page: its verify page and the verify script, which a
 * reader runs to check it (a replaced script could say "valid" to anything).
 */
export function verifyFilesOf(eventId: string): string[] {
  return [`/verify/${eventId}/index.html`, VERIFY_SCRIPT_PATH];
}

/**
 * Whether a page runs ES modules (a `type=module` script or a module preload): a client-side router may then
 * render any chunk. Read from the markup as written, generously: a false yes only costs more files hashed.
 */
export function isModuleBased(html: string): boolean {
  return /<script\b[^>]*\btype\s*=\s*["']?module\b|<link\b[^>]*\brel\s*=\s*["']?[^"'>]*\bmodulepreload\b/i.test(
    html,
  );
}

/** Why currency could not be checked: each own relay and what it said, and what answered instead. */
function describeUnchecked(
  relays: string[],
  lookup: Lookup,
  hints: RelayAnswer[],
  copy: NostrEvent | undefined,
): string {
  const own =
    relays.length === 0
      ? 'no relay of the verifier’s to ask (add `--relay` or SIEGEL_RELAYS)'
      : `no relay of the verifier’s answered: ${lookup.failed.map((answer) => `\`${answer.relay}\` (${answer.error})`).join(', ')}`;
  const others = [
    ...(hints.some((answer) => answer.error === undefined) ? ['only relays the page names'] : []),
    ...(copy ? ['only the site’s own copy of the manifest'] : []),
  ];
  return others.length === 0 ? own : `${own}; ${others.join(' and ')} answered, which the page chooses`;
}
