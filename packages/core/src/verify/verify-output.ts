import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { mkdirFast, writeFileAtomic, writeFileFast } from '../fs/atomic-write.js';
import type { FileIo } from '../fs/file-io.js';
import { MARK_SCRIPT_NAME } from '../options/mark-options.js';
import {
  LOOKUP_PAGE_NAME,
  readMarkScript,
  readVerifyScript,
  renderLookupPage,
  renderVerifyPage,
  VERIFY_SCRIPT_NAME,
} from './verify-page.js';

/** Folder of the verify pages inside the output directory. */
export const VERIFY_DIR = 'verify';

/**
 * Present in `verify/` while a run writes verify pages; removed when they are all written. A run that finds
 * it trusts none of the verify files it sees (a killed run may have left one half-written) and rewrites them.
 */
export const VERIFY_MARKER = '.siegel-writing';

/**
 * Writes the verify pages of a signed site: `verify/{event id}/index.html`, `verify/{event id}.json`, the
 * one shared script `verify/siegel-verify.js` (and the reader's mark, `verify/siegel-mark.js`, when on) and the site-wide verify page `verify/index.html` (it finds
 * an event by the id in its URL, on the site or on the relays the `nevent` names). Event ids are content addresses: a verify page that
 * already exists for an id is not written again.
 *
 * Crash safety without temp files: the per-event files are written in place (no temp file + rename: two
 * metadata operations fewer per page), the event file after the page, and only while the marker
 * {@link VERIFY_MARKER} exists. A run killed midway leaves the marker; the next run then ignores every
 * existing verify file and writes them again, so a half-written one never survives. Call {@link finish}
 * once every write is done.
 */
export class VerifyOutput {
  readonly #outDir: string;
  readonly #site: URL;
  readonly #selector: string;
  readonly #io: FileIo;
  readonly #mark: boolean;
  #existing: Promise<Set<string>> | undefined;
  #scriptWritten = false;
  #marked = false;
  /** A write failed: it may have left a partial file, so the marker stays for the next run. */
  #failed = false;

  /**
   * `io` does the per-page writes (`signSite` passes its I/O thread, or `inProcessFileIo` without one);
   * `mark`: the run puts the reader's mark on its pages, so {@link writeScript} writes its script too.
   */
  constructor(outDir: string, site: string, selector: string, io: FileIo, mark = false) {
    this.#outDir = outDir;
    this.#site = new URL(site);
    this.#selector = selector;
    this.#io = io;
    this.#mark = mark;
  }

  /** Site-relative URL path of the shared script, e.g. `/verify/siegel-verify.js` (or `/docs/verify/…`). */
  get scriptPath(): string {
    return `${this.#site.pathname.replace(/\/+$/, '')}/${VERIFY_DIR}/${VERIFY_SCRIPT_NAME}`;
  }

  /** Write the verify page and event JSON for one signed page, unless they exist already. */
  async writePage(event: NostrEvent, pageUrl: string): Promise<void> {
    const existing = await this.#readExisting();
    if (existing.has(`${event.id}.json`) && existing.has(event.id)) return;
    existing.add(`${event.id}.json`).add(event.id);
    const dir = join(this.#outDir, VERIFY_DIR, event.id);
    const html = renderVerifyPage({
      event,
      pageUrl,
      pagePath: new URL(pageUrl).pathname,
      scriptPath: this.scriptPath,
      selector: this.#selector,
    });
    try {
      // The event file last: its presence means the verify page is complete (under the marker, see above).
      await this.#io.run([
        { op: 'mkdir', path: dir },
        { op: 'write', path: join(dir, 'index.html'), data: html },
        {
          op: 'write',
          path: join(this.#outDir, VERIFY_DIR, `${event.id}.json`),
          data: `${JSON.stringify(event, null, 2)}\n`,
        },
      ]);
    } catch (error) {
      this.#failed = true;
      throw error;
    }
  }

  /**
   * Write the shared verify script, the site-wide verify page `verify/index.html` and, with the mark on, the
   * mark's script `verify/siegel-mark.js` (once per run, before the site manifest lists the output).
   */
  async writeScript(): Promise<void> {
    if (this.#scriptWritten) return;
    this.#scriptWritten = true;
    await mkdirFast(join(this.#outDir, VERIFY_DIR));
    await writeFileAtomic(join(this.#outDir, VERIFY_DIR, VERIFY_SCRIPT_NAME), await readVerifyScript());
    await writeFileAtomic(
      join(this.#outDir, VERIFY_DIR, LOOKUP_PAGE_NAME),
      renderLookupPage({ site: this.#site.href, selector: this.#selector }),
    );
    if (this.#mark)
      await writeFileAtomic(join(this.#outDir, VERIFY_DIR, MARK_SCRIPT_NAME), await readMarkScript());
  }

  /** Remove the marker once every {@link writePage} has settled — unless one failed (it may be partial). */
  async finish(): Promise<void> {
    if (!this.#marked || this.#failed) return;
    this.#marked = false;
    await rm(join(this.#outDir, VERIFY_DIR, VERIFY_MARKER), { force: true });
  }

  /** The verify files already there (none when a killed run left the marker), after setting the marker. */
  #readExisting(): Promise<Set<string>> {
    this.#existing ??= (async () => {
      const dir = join(this.#outDir, VERIFY_DIR);
      const names = await readdir(dir).catch(() => [] as string[]);
      await mkdirFast(dir);
      await writeFileFast(
        join(dir, VERIFY_MARKER),
        'siegel sign is writing verify pages; a run that finds this file rewrites them all.\n',
      );
      this.#marked = true;
      return names.includes(VERIFY_MARKER) ? new Set<string>() : new Set(names);
    })();
    return this.#existing;
  }
}
