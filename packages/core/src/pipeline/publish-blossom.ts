// `siegel publish --blossom`: every file the site's signed manifest (verify/manifest.json, NIP-5A) lists goes
// to each Blossom server, so that an nsite gateway can serve the site from the manifest alone. Blobs a
// server holds already are skipped (HEAD); the others are uploaded with one BUD-11 auth event each (kind
// 24242, `t` upload, `x` the blob's hash, an expiration), signed by the site's signer in batches.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import PQueue from 'p-queue';
import { SiegelError } from '../errors.js';
import { readManifestBlob } from '../manifest/manifest-layout.js';
import { MANIFEST_FILE, NSITE_NAMED_KIND, NSITE_ROOT_KIND, readManifest } from '../manifest/site-manifest.js';
import { type BlossomRequestOptions, blobContentType, hasBlob, putBlob } from '../net/blossom.js';
import { loadSigningEngine } from '../nostr/crypto.js';
import { isEventShape } from '../nostr/event-shape.js';
import type { Signer } from '../nostr/signer.js';
import { verifyEventSignature } from '../nostr/verify-signature.js';
import type { SiegelLogger } from '../options/options.js';
import { VERIFY_DIR } from '../verify/verify-output.js';

/** NIP-5A's manifest kinds: the key's root site, a named site. */
const MANIFEST_KINDS = new Set<number>([NSITE_ROOT_KIND, NSITE_NAMED_KIND]);
/** BUD-11's authorization event. */
export const BLOSSOM_AUTH_KIND = 24242;
/** How long an auth event is good for: long enough for a slow upload queue, short enough to be useless later. */
const AUTH_LIFETIME_S = 3600;
/** Auth events asked of the signer per request (the bunker's default batch). */
const AUTH_BATCH = 500;

/** One blob of the site: its hash, and a path (of possibly several) that holds its bytes. */
interface SiteBlob {
  sha256: string;
  path: string;
}

/** What one server did with the site's blobs. */
export interface BlossomServerReport {
  server: string;
  /** Blobs uploaded in this run. */
  uploaded: number;
  /** Blobs the server held already (`HEAD` 2xx). */
  present: number;
  /** Blobs not there after the run, each with the first path listing it and why. */
  failed: Array<{ path: string; sha256: string; reason: string }>;
}

/** What {@link uploadSiteBlobs} did: per server, in the configured order. */
export interface BlossomReport {
  /** Distinct blobs the manifest lists. */
  blobs: number;
  servers: BlossomServerReport[];
  /** Failed blobs over all servers (a blob counts once per server it did not reach). */
  failed: number;
}

/** Options of {@link uploadSiteBlobs}. */
export interface UploadSiteBlobsOptions extends BlossomRequestOptions {
  /** Blossom servers, as `parseBlossomServers` returns them. */
  servers: string[];
  /** The signer of the auth events, opened only when some blob must be uploaded. */
  openSigner: () => Promise<Signer>;
  /** Where the report and warnings go. */
  logger: SiegelLogger;
  /** Requests in flight at once, over all servers (default 6). */
  concurrency?: number;
  /** Unix seconds now (default: the clock). */
  now?: () => number;
}

/**
 * Upload every file `{dir}/verify/manifest.json` lists (and, for a manifest in layout blob, every file its
 * blob lists) to each server that does not hold it yet. A file whose bytes no longer match the manifest's
 * hash is not uploaded (the site changed after signing: sign again). Logs one line per server and one per
 * reason a blob failed; never throws for a blob.
 *
 * @example
 * ```ts
 * const report = await uploadSiteBlobs('dist', { servers: ['https://blossom.example'], openSigner, logger });
 * if (report.failed > 0) process.exitCode = 1;
 * ```
 * @throws {SiegelError} `io_error` for a missing, unsigned or unreadable manifest; errors of the signer.
 */
export async function uploadSiteBlobs(dir: string, options: UploadSiteBlobsOptions): Promise<BlossomReport> {
  const root = resolve(dir);
  const { logger } = options;
  const manifest = await readManifestBlobs(root);
  const queue = new PQueue({ concurrency: options.concurrency ?? 6 });
  const request = { ...(options.fetch ? { fetch: options.fetch } : {}), timeoutMs: options.timeoutMs };
  const reports = options.servers.map((server) => ({
    server,
    uploaded: 0,
    present: 0,
    failed: [] as BlossomServerReport['failed'],
  }));
  const fail = (report: BlossomServerReport, blob: SiteBlob, reason: string) =>
    report.failed.push({ path: blob.path, sha256: blob.sha256, reason });

  // The bytes on disk must still be the ones the manifest names: a gateway checks the hash and would refuse.
  const changed = new Map<string, string>();
  await queue.addAll(
    manifest.blobs.map((blob) => async () => {
      const problem = await readBlob(root, blob).then(
        () => undefined,
        (error: Error) => error.message,
      );
      if (problem) changed.set(blob.sha256, problem);
    }),
  );
  const missing = reports.map(() => [] as SiteBlob[]);
  await queue.addAll(
    reports.flatMap((report, index) =>
      manifest.blobs.map((blob) => async () => {
        const problem = changed.get(blob.sha256);
        if (problem) return fail(report, blob, problem);
        try {
          if (await hasBlob(report.server, blob.sha256, request)) report.present++;
          else missing[index]?.push(blob);
        } catch (error) {
          fail(report, blob, (error as Error).message);
        }
      }),
    ),
  );

  const needed = [...new Set(missing.flat())];
  if (needed.length > 0) {
    const signer = await options.openSigner();
    const pubkey = await signer.getPublicKey();
    if (pubkey !== manifest.pubkey)
      logger.warn(
        `Siegel: the Blossom auth events are signed by ${pubkey}, the manifest by ${manifest.pubkey}: a server that admits by key may refuse them`,
      );
    const auth = await signAuthEvents(signer, needed, options.now?.() ?? Math.floor(Date.now() / 1000));
    await queue.addAll(
      reports.flatMap((report, index) =>
        (missing[index] ?? []).map((blob) => async () => {
          try {
            const bytes = await readBlob(root, blob);
            const authorization = `Nostr ${Buffer.from(JSON.stringify(auth.get(blob.sha256))).toString('base64')}`;
            await putBlob(
              report.server,
              bytes,
              blob.sha256,
              { authorization, contentType: blobContentType(blob.path) },
              request,
            );
            report.uploaded++;
          } catch (error) {
            fail(report, blob, (error as Error).message);
          }
        }),
      ),
    );
  }
  const result = {
    blobs: manifest.blobs.length,
    servers: reports,
    failed: reports.reduce((sum, report) => sum + report.failed.length, 0),
  };
  for (const line of formatBlossomReport(result)) {
    if (line.failed) logger.warn(line.text);
    else logger.info(line.text);
  }
  return result;
}

/**
 * The report as lines: per server `Siegel: Blossom <server>: 3 uploaded, 40 already there (43 blobs)`, and
 * per reason a blob failed there `… 2 not uploaded — 413 Payload Too Large — too large: /a.png, /b.png`
 * (at most 5 paths named per reason).
 */
export function formatBlossomReport(report: BlossomReport): Array<{ text: string; failed: boolean }> {
  return report.servers.flatMap((server) => {
    // Paths sorted: the uploads finish in any order, the report does not change with it.
    const byReason = new Map<string, string[]>();
    for (const failure of server.failed) {
      const paths = byReason.get(failure.reason) ?? [];
      paths.push(failure.path);
      byReason.set(failure.reason, paths);
    }
    const failedPart = server.failed.length > 0 ? `, ${server.failed.length} failed` : '';
    return [
      {
        text: `Siegel: Blossom ${server.server}: ${server.uploaded} uploaded, ${server.present} already there${failedPart} (${report.blobs} blobs)`,
        failed: server.failed.length > 0,
      },
      ...[...byReason].map(([reason, unordered]) => {
        const paths = unordered.sort();
        const more = paths.length > 5 ? `, and ${paths.length - 5} more` : '';
        return {
          text: `Siegel: Blossom ${server.server}: ${paths.length} not uploaded — ${reason}: ${paths.slice(0, 5).join(', ')}${more}`,
          failed: true,
        };
      }),
    ];
  });
}

/** One BUD-11 upload auth event per blob, signed in batches; by hash. */
async function signAuthEvents(
  signer: Signer,
  blobs: SiteBlob[],
  now: number,
): Promise<Map<string, NostrEvent>> {
  const templates: EventTemplate[] = blobs.map((blob) => ({
    kind: BLOSSOM_AUTH_KIND,
    created_at: now,
    content: `Upload ${blob.path.split('/').at(-1)}`,
    tags: [
      ['t', 'upload'],
      ['x', blob.sha256],
      ['expiration', String(now + AUTH_LIFETIME_S)],
    ],
  }));
  const signed = new Map<string, NostrEvent>();
  for (let start = 0; start < templates.length; start += AUTH_BATCH) {
    const events = await signer.signEvents(templates.slice(start, start + AUTH_BATCH));
    events.forEach((event, offset) => {
      const blob = blobs[start + offset];
      if (blob) signed.set(blob.sha256, event);
    });
  }
  return signed;
}

/** The blob's bytes from disk, checked against its hash. @throws {Error} when missing or changed. */
async function readBlob(root: string, blob: SiteBlob): Promise<Buffer> {
  const bytes = await readFile(fileOf(root, blob.path)).catch(() => {
    throw new Error('not in the site directory (sign again)');
  });
  if (sha256Hex(bytes) !== blob.sha256) throw new Error('changed since the manifest was signed (sign again)');
  return bytes;
}

const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The file a manifest path names, inside `root` (a path that would leave it is refused). */
function fileOf(root: string, path: string): string {
  const file = resolve(join(root, ...path.split('/').filter(Boolean)));
  if (!file.startsWith(root + sep)) throw new Error(`\`${path}\` is outside the site directory`);
  return file;
}

/**
 * The signed manifest's blobs (distinct by hash, each with the first path listing it, sorted by path) and
 * its pubkey, read by the manifest room's `readManifest`. Layout blob: the event names
 * `verify/manifest-<sha>.json`; its tags are read from that file (`readManifestBlob` checks its hash).
 * @throws {SiegelError} `io_error` when the manifest is missing, not a validly signed NIP-5A event, or
 *   its blob file is missing or changed.
 */
async function readManifestBlobs(root: string): Promise<{ pubkey: string; blobs: SiteBlob[] }> {
  let event: unknown;
  try {
    event = JSON.parse(await readFile(join(root, MANIFEST_FILE), 'utf8'));
  } catch (cause) {
    throw new SiegelError(
      'io_error',
      `No site manifest \`${MANIFEST_FILE}\` in \`${root}\`: sign the site first (\`siegel sign\`)`,
      { cause },
    );
  }
  if (
    !isEventShape(event) ||
    !MANIFEST_KINDS.has(event.kind) ||
    !verifyEventSignature(await loadSigningEngine(), event)
  )
    throw new SiegelError('io_error', `\`${MANIFEST_FILE}\` is not a validly signed site manifest (NIP-5A)`);
  let manifest = readManifest(event);
  if (manifest.blob) {
    const name = `${VERIFY_DIR}/manifest-${manifest.blob.sha256}.json`;
    try {
      manifest = readManifest(event, readManifestBlob(await readFile(join(root, name)), manifest.blob));
    } catch (cause) {
      throw new SiegelError(
        'io_error',
        `The manifest's path list \`${name}\` is missing or changed: sign again`,
        {
          cause,
        },
      );
    }
  }
  const blobs = new Map<string, SiteBlob>();
  for (const [path, sha256] of [...manifest.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    if (!blobs.has(sha256)) blobs.set(sha256, { sha256, path });
  return { pubkey: manifest.pubkey, blobs: [...blobs.values()] };
}
