import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { mkdirFast, writeFileAtomic } from './atomic-write.js';
import { readVerifyScript, renderVerifyPage, VERIFY_SCRIPT_NAME } from './verify-page.js';

/** Folder of the verify pages inside the output directory. */
export const VERIFY_DIR = 'verify';

/**
 * Writes the verify pages of a signed site: `verify/{event id}/index.html`, `verify/{event id}.json`, and
 * the one shared script `verify/siegel-verify.js`. Event ids are content addresses: a verify page that
 * already exists for an id is not written again.
 */
export class VerifyOutput {
  readonly #outDir: string;
  readonly #site: URL;
  readonly #selector: string;
  #existing: Promise<Set<string>> | undefined;
  #scriptWritten = false;

  constructor(outDir: string, site: string, selector: string) {
    this.#outDir = outDir;
    this.#site = new URL(site);
    this.#selector = selector;
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
    await mkdirFast(dir);
    const html = renderVerifyPage({
      event,
      pageUrl,
      pagePath: new URL(pageUrl).pathname,
      scriptPath: this.scriptPath,
      selector: this.#selector,
    });
    // The event file last: its presence means the verify page is complete (a killed run re-does the rest).
    await writeFileAtomic(join(dir, 'index.html'), html);
    await writeFileAtomic(
      join(this.#outDir, VERIFY_DIR, `${event.id}.json`),
      `${JSON.stringify(event, null, 2)}\n`,
    );
  }

  /** Write the shared verify script (once per run). */
  async writeScript(): Promise<void> {
    if (this.#scriptWritten) return;
    this.#scriptWritten = true;
    await mkdirFast(join(this.#outDir, VERIFY_DIR));
    await writeFileAtomic(join(this.#outDir, VERIFY_DIR, VERIFY_SCRIPT_NAME), await readVerifyScript());
  }

  #readExisting(): Promise<Set<string>> {
    this.#existing ??= readdir(join(this.#outDir, VERIFY_DIR)).then(
      (names) => new Set(names),
      () => new Set<string>(),
    );
    return this.#existing;
  }
}
