import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { afterEach } from 'vitest';
import { LocalKeySigner, type Signer } from '../../src/index.js';
import { NSITE_NAMED_KIND, NSITE_ROOT_KIND } from '../../src/manifest/site-manifest.js';

/** The site URL the fixture pages are signed for. */
export const SITE = 'https://example.com';

/** A small built site: nested pages, an implied <head>, a page without <main>, non-ASCII, CRLF. */
export const FIXTURE_PAGES: Record<string, string> = {
  'index.html':
    '<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Start</title><meta name="description" content="Die Startseite"></head><body><nav><a href="/blog/">Blog</a></nav><main><h1>Grüße &amp; Hallo</h1><p>Text&nbsp;hier</p></main><footer>© 2026</footer></body></html>\n',
  'about.html':
    '<!doctype html><title>About "us"</title><main class="x">\r\n<p>We <em>make</em> things.</p>\r\n</main>\r\n',
  'blog/first/index.html':
    '<!DOCTYPE html>\n<html>\n<head>\n  <meta charset="utf-8">\n  <title>First post</title>\n</head>\n<body>\n<main><article><h1>First</h1><p>One &lt; two</p></article></main>\n</body>\n</html>\n',
  'blog/second/index.html':
    '<!DOCTYPE html>\n<html><head><title>Second</title></head><body><main><p>Second <b>post</b></p><astro-island props="{&quot;a&quot;:[0,1]}"></astro-island></main></body></html>\n',
  'no-main.html':
    '<!doctype html><html><head><title>No main</title></head><body><div>nothing to sign</div></body></html>\n',
};

/** Write the fixture site into a fresh temp dir; returns the project root with `dist/` inside. */
export async function createFixtureProject(pages: Record<string, string> = FIXTURE_PAGES): Promise<{
  root: string;
  dist: string;
  cacheFile: string;
  cleanup(): Promise<void>;
}> {
  const root = await mkdtemp(join(tmpdir(), 'siegel-site-'));
  const dist = join(root, 'dist');
  await writePages(dist, pages);
  return {
    root,
    dist,
    cacheFile: join(root, '.sign-cache.json'),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** What {@link createFixtureProject} returns. */
export type FixtureProject = Awaited<ReturnType<typeof createFixtureProject>>;

/**
 * Call at a test file's top level: every project made with `createProject` (and every clean-up handed
 * to `defer`) is removed after each test, in the order registered.
 */
export function useFixtureProjects(): {
  createProject(pages?: Record<string, string>): Promise<FixtureProject>;
  defer(cleanup: () => Promise<void>): void;
} {
  let cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups) await cleanup();
    cleanups = [];
  });
  return {
    async createProject(pages) {
      const project = await createFixtureProject(pages);
      cleanups.push(project.cleanup);
      return project;
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
  };
}

export async function writePages(dir: string, pages: Record<string, string>): Promise<void> {
  for (const [path, html] of Object.entries(pages)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), html);
  }
}

export async function readPages(dir: string, paths: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of paths) out[path] = await readFile(join(dir, path), 'utf8');
  return out;
}

export { cp };

/**
 * A real local-key signer that counts what it is asked to sign: requests and events holding pages, and apart
 * from them the site manifests (every signing run that signs a page signs one, in a request of its own).
 */
export class CountingSigner implements Signer {
  readonly inner: LocalKeySigner;
  /** Requests holding page events (kind 1063). */
  calls = 0;
  /** Page events signed. */
  events = 0;
  /** Site manifest events signed (kinds 15128 and 35128), in order. */
  manifests: NostrEvent[] = [];
  constructor(secretKey: string) {
    this.inner = new LocalKeySigner(secretKey);
  }
  getPublicKey(): Promise<string> {
    return this.inner.getPublicKey();
  }
  async signEvents(templates: EventTemplate[]): Promise<NostrEvent[]> {
    const signed = await this.inner.signEvents(templates);
    const manifests = signed.filter(
      (event) => event.kind === NSITE_ROOT_KIND || event.kind === NSITE_NAMED_KIND,
    );
    // A request is either the manifest alone or pages only: the run never mixes them.
    if (manifests.length > 0 && manifests.length !== signed.length)
      throw new Error('a request mixed the site manifest with page events');
    if (manifests.length > 0) this.manifests.push(...manifests);
    else {
      this.calls++;
      this.events += templates.length;
    }
    return signed;
  }
  /** Start counting afresh (between the runs of a test). */
  reset(): void {
    this.calls = 0;
    this.events = 0;
    this.manifests = [];
  }
}

export const KEY_A = '5'.repeat(64);
export const KEY_B = '7'.repeat(64);

export function collectingLogger(): {
  info: string[];
  warn: string[];
  logger: { info(m: string): void; warn(m: string): void };
} {
  const info: string[] = [];
  const warn: string[] = [];
  return { info, warn, logger: { info: (m) => info.push(m), warn: (m) => warn.push(m) } };
}
