// What a signed output's site manifest should say, computed from the files themselves (issue 36), for the
// tests that sign a site: the manifest read back from `verify/manifest.json` (its blob read, hash checked,
// in layout blob) and the list of files it must name, from a walk of the output.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { verifyEvent } from 'nostr-tools/pure';
import { readManifestBlob } from '../../packages/core/src/manifest/manifest-layout.ts';
import { readManifest, type SiteManifest } from '../../packages/core/src/manifest/site-manifest.ts';

/**
 * Every file of `dir` a site manifest lists, as `'/path' → sha256 hex`: all regular files but the
 * per-event files `verify/<64 hex>.json`, `verify/manifest.json` and files without an extension (`CNAME`).
 * A blob file `verify/manifest-<sha>.json` is in (the event's own path tag names it).
 *
 * @example
 * ```ts
 * expect((await readSiteManifest(dist)).manifest.files).toEqual(await manifestFilesOf(dist));
 * ```
 */
export async function manifestFilesOf(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (/^verify\/([0-9a-f]{64}|manifest)\.json$/.test(path) || !/\.[^./]+$/.test(path)) continue;
    const bytes = await readFile(join(dir, path));
    files.set(`/${path}`, createHash('sha256').update(bytes).digest('hex'));
  }
  return files;
}

/**
 * The site manifest a signing run wrote to `dir`: the event in `verify/manifest.json`, whether its signature
 * verifies, and what it lists — in layout blob with the blob file of `dir` read and hash checked.
 *
 * @example
 * ```ts
 * const { event, verified, manifest } = await readSiteManifest(dist);
 * expect(manifest.pages.get('/index.html')?.eventId).toBe(block.eventId);
 * ```
 */
export async function readSiteManifest(
  dir: string,
): Promise<{ event: NostrEvent; verified: boolean; manifest: SiteManifest }> {
  const text = await readFile(join(dir, 'verify', 'manifest.json'), 'utf8');
  const event = JSON.parse(text) as NostrEvent;
  const head = readManifest(event);
  const blob = head.blob;
  const manifest = blob
    ? readManifest(
        event,
        readManifestBlob(await readFile(join(dir, 'verify', `manifest-${blob.sha256}.json`)), blob),
      )
    : head;
  return { event, verified: verifyEvent(JSON.parse(text)), manifest };
}
