// An nsite host server's resolution, written for the tests from NIP-5A's text (nostr-protocol/nips 5A.md,
// "Host server implementation"), independent of Siegel's code: the newest site manifest from the relays
// (kind 15128 by author, or 35128 by author and `#d`; newest `created_at`, on a tie the lowest id — NIP-01),
// the request path matched against the `path` tags (a path not ending in a filename gets `index.html`),
// `/404.html` when no manifest or no path matches, the blob fetched by its sha256 from the manifest's
// `server` tags, then the author's BUD-03 server list (kind 10063) (BUD-01 `GET /<sha256>`) and its bytes
// checked against the hash, `Content-Type` forwarded
// from the Blossom server or, when it sends none, taken from the extension.
import { createHash } from 'node:crypto';
import { type Event, verifyEvent } from 'nostr-tools/pure';
import { queryRelay } from './relay-process.js';

export const NSITE_ROOT_KIND = 15128;
export const NSITE_NAMED_KIND = 35128;
const D_TAG = /^[a-z0-9-]{1,13}$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** Which site: the author's root site (no `d`) or a named one. */
export interface NsiteAddress {
  pubkey: string;
  d?: string;
}

/** What the host server answers for one request. */
export interface NsiteResponse {
  status: number;
  body: Buffer;
  contentType: string | undefined;
  /** The manifest path that was served (`/404.html` for a miss), or undefined when nothing was. */
  servedPath: string | undefined;
}

/**
 * Why `event` is not a valid NIP-5A site manifest (empty when it is): its kind, its `d` tag (named:
 * `^[a-z0-9-]{1,13}$`, not ending in `-`; root: none), at least one `path` tag, each path absolute and
 * ending with a filename with an extension, each hash 64 lowercase hex, `source` an http(s) URL.
 */
export function manifestProblems(event: Event): string[] {
  const problems: string[] = [];
  if (!verifyEvent(event)) problems.push('bad id or signature');
  const d = event.tags.filter((tag) => tag[0] === 'd');
  if (event.kind === NSITE_ROOT_KIND) {
    if (d.length > 0) problems.push('a root site (15128) must not have a d tag');
  } else if (event.kind === NSITE_NAMED_KIND) {
    const value = d[0]?.[1] ?? '';
    if (d.length !== 1 || !D_TAG.test(value) || value.endsWith('-'))
      problems.push(`named site: bad d tag ${JSON.stringify(d)}`);
  } else problems.push(`kind ${event.kind} is no site manifest`);
  const paths = event.tags.filter((tag) => tag[0] === 'path');
  if (paths.length === 0) problems.push('no path tag');
  for (const tag of paths) {
    const [, path = '', sha = ''] = tag;
    const last = path.split('/').at(-1) ?? '';
    if (!path.startsWith('/') || !/^[^.][^/]*\.[^./]+$/.test(last))
      problems.push(`path ${JSON.stringify(path)} is not absolute with a filename and extension`);
    if (!HEX64.test(sha)) problems.push(`path ${JSON.stringify(path)}: ${JSON.stringify(sha)} is no sha256`);
  }
  for (const tag of event.tags.filter((tag) => tag[0] === 'source'))
    if (!/^https?:\/\//.test(tag[1] ?? ''))
      problems.push(`source ${JSON.stringify(tag[1])} is no http(s) URL`);
  return problems;
}

/**
 * The newest manifest of `site` on `relays`: every answer checked (signature, kind, author, `d`), then the
 * greatest `created_at`, on a tie the lowest id.
 */
export async function fetchManifest(relays: string[], site: NsiteAddress): Promise<Event | undefined> {
  const kind = site.d === undefined ? NSITE_ROOT_KIND : NSITE_NAMED_KIND;
  const filter = {
    kinds: [kind],
    authors: [site.pubkey],
    ...(site.d === undefined ? {} : { '#d': [site.d] }),
  };
  const answers = await Promise.all(
    relays.map((relay) => queryRelay(relay, filter).catch(() => [] as unknown[])),
  );
  const events = (answers.flat() as Event[]).filter(
    (event) =>
      event.kind === kind &&
      event.pubkey === site.pubkey &&
      (site.d === undefined || event.tags.some((tag) => tag[0] === 'd' && tag[1] === site.d)) &&
      verifyEvent(event),
  );
  events.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1));
  return events[0];
}

/** The author's Blossom servers from their newest BUD-03 list (kind 10063, `server` tags) on `relays`. */
export async function fetchUserServers(relays: string[], pubkey: string): Promise<string[]> {
  const answers = await Promise.all(
    relays.map((relay) =>
      queryRelay(relay, { kinds: [10063], authors: [pubkey] }).catch(() => [] as unknown[]),
    ),
  );
  const lists = (answers.flat() as Event[]).filter(
    (event) => event.kind === 10063 && event.pubkey === pubkey && verifyEvent(event),
  );
  lists.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1));
  return (lists[0]?.tags ?? []).filter((tag) => tag[0] === 'server').map((tag) => tag[1] as string);
}

/** The manifest path a request path asks for: a path that does not end in a filename gets `index.html`. */
export function manifestPathOf(requestPath: string): string {
  const path = decodeURIComponent(new URL(requestPath, 'http://host').pathname);
  if (path.endsWith('/')) return `${path}index.html`;
  const last = path.split('/').at(-1) ?? '';
  return last.includes('.') ? path : `${path}/index.html`;
}

/**
 * Answer a request for `requestPath` of the site `manifest` describes, as a host server does: the
 * matching `path` tag, else `/404.html` (status 404); the blob from the `server` tags, then from
 * `userServers` (the author's 10063 list), checked against its hash (a server whose bytes do not match is
 * skipped).
 */
export async function resolvePath(
  manifest: Event | undefined,
  requestPath: string,
  userServers: string[] = [],
): Promise<NsiteResponse> {
  const notFound = { status: 404, body: Buffer.alloc(0), contentType: undefined, servedPath: undefined };
  if (!manifest) return notFound;
  const hashOf = (path: string) => manifest.tags.find((tag) => tag[0] === 'path' && tag[1] === path)?.[2];
  const asked = manifestPathOf(requestPath);
  const found = hashOf(asked);
  const servedPath = found ? asked : hashOf('/404.html') ? '/404.html' : undefined;
  if (!servedPath) return notFound;
  const sha = hashOf(servedPath) as string;
  const servers = [
    ...manifest.tags.filter((tag) => tag[0] === 'server').map((tag) => tag[1] as string),
    ...userServers,
  ];
  for (const server of servers) {
    const response = await fetch(`${server.replace(/\/+$/, '')}/${sha}`).catch(() => undefined);
    if (!response?.ok) continue;
    const body = Buffer.from(await response.arrayBuffer());
    if (createHash('sha256').update(body).digest('hex') !== sha) continue;
    return {
      status: found ? 200 : 404,
      body,
      contentType: response.headers.get('content-type') ?? typeFromExtension(servedPath),
      servedPath,
    };
  }
  // No server tag and no 10063 list, or no server with the right bytes.
  return notFound;
}

const TYPES: Record<string, string> = {
  html: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  json: 'application/json',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
};

function typeFromExtension(path: string): string {
  return TYPES[path.split('.').at(-1) ?? ''] ?? 'application/octet-stream';
}
