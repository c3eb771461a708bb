// The rule book's judgement of a page against its site manifest (NIP-5A, manifest/site-manifest.ts): whether
// the page is the site's current version, and whether what it loads is what the author published. Called by
// `judgePage` (rules.ts) with what a verifier gathered (`ManifestEvidence`); the gathering — relays, the
// site's copy, fetched assets — is each verifier's own (manifest-evidence.ts in Node, script/ in the
// browser). Pure, like rules.ts: no Node built-ins and no I/O, bundled into the browser verify script.
import type { NostrEvent } from 'nostr-tools/core';
import { manifestPathsFor, parseManifestAddress, type SiteManifest } from '../manifest/site-manifest.js';
import type { Problem, ProblemCode } from './problem-codes.js';

/** A same-site file a page depends on, as a verifier got it, for the manifest's hash. */
export interface AssetFinding {
  /** Its manifest path: `/` + the path under the site (`/assets/app.js`, `/verify/siegel-verify.js`). */
  path: string;
  /** SHA-256 hex of the bytes got; `undefined` when they could not be got (`why` says why: not judged). */
  sha256: string | undefined;
  why?: string;
}

/**
 * What a verifier found about the page's site manifest. Currency is decided from relays the page does not
 * choose (`answered`, `fromOwnRelays`); a newer manifest signed by the key proves a page old wherever it was
 * found (`newest`), but only the verifier's relays can say that nothing newer exists.
 */
export interface ManifestEvidence {
  /** The newest manifest for the event's `a` address from every source asked (signature checked by the caller). */
  newest: SiteManifest | undefined;
  /** The verifier's own relays (its list, the key's NIP-65 relays) that answered the lookup. */
  answered: string[];
  /**
   * The newest manifest the verifier's own relays held (`undefined`: none held one). An addition to the
   * design's fields: without it, relays that answered empty could not be told from relays that hold the
   * manifest when `newest` came from the page's hints or the site's copy.
   */
  fromOwnRelays?: SiteManifest | undefined;
  /** A manifest (the site's copy is fine) that lists this page's event: the one its assets are judged by. */
  pageNamed: SiteManifest | undefined;
  /** Why currency could not be checked, for `manifest.unchecked` (which relays failed and how). */
  why?: string;
  /**
   * What the page loads now (page/page-loads.ts), read against the manifest's site URL; absent: the
   * reading's `loads` (empty when it was read without knowing the site).
   */
  loads?: string[];
  /** SHA-256 hex of the page's bytes, for `manifest.bytes_differ`. */
  pageSha256?: string;
  /** Same-site files the page depends on, as got (URL mode: fetched; a directory: read). */
  assets?: AssetFinding[];
}

/** A date as the messages give it: `2026-05-01 14:03 UTC`. */
function describeDate(createdAt: number): string {
  return `${new Date(createdAt * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The page's event against its site manifest: `page.superseded` / `page.withdrawn` when the newest manifest
 * no longer lists this event, `manifest.unchecked` / `manifest.missing` when currency could not be shown,
 * and, against the manifest that names the event, `asset.unlisted` for a load it does not record,
 * `asset.changed` for a file whose bytes are not its hash, `manifest.bytes_differ` for page bytes that
 * differ while everything else matches (`found`: the problems judged so far). A manifest by another key or
 * for another address than the event's `a` tag does not count; an event whose id, signature or kind failed
 * is not judged against any.
 *
 * @example
 * ```ts
 * const problems = judgeManifest(event, { newest, answered: ['wss://relay.example'], pageNamed: newest }, loads);
 * // [['page.superseded', 'a newer version of this page was signed on …']]
 * ```
 */
export function judgeManifest(
  event: NostrEvent,
  evidence: ManifestEvidence,
  loads: readonly string[] | undefined,
  found: readonly Problem[] = [],
): Array<[ProblemCode, string]> {
  const problems: Array<[ProblemCode, string]> = [];
  // Only a sound page event's `a` tag means anything: not a forged, altered or foreign-kind one.
  if (found.some((problem) => /^event\.(id|signature|kind)$/.test(problem.code))) return problems;
  const aTag = event.tags.find((tag) => tag[0] === 'a')?.[1];
  const address = aTag === undefined ? undefined : parseManifestAddress(aTag);
  if (address === undefined) {
    problems.push([
      'manifest.unchecked',
      aTag === undefined
        ? 'the page’s event names no site manifest (no `a` tag: signed before manifests; re-sign the site once), so whether it is the current version was not checked'
        : `the page’s event names no site manifest Siegel can read (\`a\` tag \`${aTag.slice(0, 200)}\`), so whether it is the current version was not checked`,
    ]);
    return problems;
  }
  const ours = (manifest: SiteManifest | undefined) =>
    manifest !== undefined &&
    manifest.pubkey === event.pubkey &&
    manifest.kind === address.kind &&
    (manifest.d ?? '') === (address.d ?? '')
      ? manifest
      : undefined;
  const newest = ours(evidence.newest);
  const url = event.tags.find((tag) => tag[0] === 'url')?.[1];
  if (newest && !newest.pagesByEvent.has(event.id)) {
    const paths = url === undefined ? [] : manifestPathsFor(url, newest.siteUrl ?? new URL(url).origin);
    const other = paths.map((path) => newest.pages.get(path)).find((page) => page !== undefined);
    const when = describeDate(newest.createdAt);
    if (other)
      problems.push([
        'page.superseded',
        `a newer version of this page was signed on ${when}: the site’s newest manifest (\`${newest.eventId}\`) lists the page event \`${other.eventId}\` at \`${other.path}\`, not this one`,
      ]);
    else
      problems.push([
        'page.withdrawn',
        `the site’s newest manifest (\`${newest.eventId}\`, signed on ${when}) no longer lists this page${paths[0] ? ` (\`${paths[0]}\`)` : ''}: the author withdrew it`,
      ]);
  } else if (evidence.answered.length === 0) {
    problems.push([
      'manifest.unchecked',
      `whether this is the site’s current version was not checked: ${evidence.why ?? 'no relay of the verifier’s answered'}`,
    ]);
  } else if (!ours(evidence.fromOwnRelays)) {
    problems.push([
      'manifest.missing',
      `the relays asked (${evidence.answered.map((relay) => `\`${relay}\``).join(', ')}) answered, but none holds the site manifest \`${aTag}\` this page names`,
    ]);
  }
  const named = ours(evidence.pageNamed) ?? (newest?.pagesByEvent.has(event.id) ? newest : undefined);
  const page = named?.pagesByEvent.get(event.id);
  if (!named || !page) return problems;
  // Beside `page.superseded` or `page.withdrawn`, other bytes would only repeat that the page is old.
  const old = problems.some(([code]) => code === 'page.superseded' || code === 'page.withdrawn');
  const before = problems.length;
  const recorded = new Set(page.loads);
  for (const item of evidence.loads ?? loads ?? [])
    if (!recorded.has(item))
      problems.push([
        'asset.unlisted',
        `the page loads \`${item.slice(0, 300)}\`, which its signed site manifest does not list for it`,
      ]);
  for (const asset of evidence.assets ?? []) {
    if (asset.sha256 === undefined) continue;
    const signed = named.files.get(asset.path);
    if (signed === undefined)
      problems.push([
        'asset.unlisted',
        `\`${asset.path}\` is not a file of the signed site manifest (\`${named.eventId}\`)`,
      ]);
    else if (signed !== asset.sha256)
      problems.push([
        'asset.changed',
        `\`${asset.path}\` is not the file the author published: it hashes to \`${asset.sha256}\`, the site manifest pins \`${signed}\``,
      ]);
  }
  // Other bytes than published, though everything judged matches: a host's rewrite. Beside an error (an
  // edited element, a changed title) it would only repeat that the page changed.
  const signedPage = named.files.get(page.path);
  if (
    !old &&
    problems.length === before &&
    !found.some((problem) => problem.severity === 'error') &&
    evidence.pageSha256 !== undefined &&
    signedPage !== undefined &&
    signedPage !== evidence.pageSha256
  )
    problems.push([
      'manifest.bytes_differ',
      `the page’s bytes hash to \`${evidence.pageSha256}\`, the site manifest pins \`${signedPage}\` for \`${page.path}\`; it names the same event and loads the same files (a host rewrote the HTML?)`,
    ]);
  return problems;
}

/** The manifest path of every same-site load item (`script /assets/a.js` → `/assets/a.js`), in order. */
export function sameSiteLoadPaths(loads: readonly string[]): string[] {
  const paths: string[] = [];
  for (const item of loads) {
    // Same-site items carry no integrity suffix, and a path may hold a space: everything after the kind.
    const target = item.slice(item.indexOf(' ') + 1);
    if (target.startsWith('/') && !paths.includes(target)) paths.push(target);
  }
  return paths;
}
