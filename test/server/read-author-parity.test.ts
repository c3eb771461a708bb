// Issue 40, acceptance 2: `readAuthor` of @siegel/formats — what @siegel/client's `readAuthor` runs — gives
// the same authors and `author_source` as the real server's `/api/inspect` on every file the real-writer
// suites write (exiftool, ImageMagick, sharp; pdfkit, Chromium, Ghostscript, qpdf; gray-matter, Hugo, Pandoc
// …), written here by the same fixture writers. On node's primitives for every file; on the web's (the
// client's) too, where only AES-encrypted PDFs may be refused, as `encrypted`.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FormatError, readAuthor, webPrimitives } from '../../packages/formats/src/index.js';
import { nodePrimitives } from '../../packages/formats/src/node.js';
import { requireTools, writeImages } from './image-writers.js';
import { requirePdfTools, writePdfs } from './pdf-writers.js';
import { inspectOverHttp, type RunningServer } from './server-process.js';
import { requireTextTools, writeTexts } from './text-writers.js';
import { useWriterRun } from './writer-run.js';

// Timeouts (docs/testing.md): each suite's files inspected over HTTP one by one and read twice (some 60 PDFs,
// several MiB of them): up to a minute on two busy cores.
vi.setConfig({ testTimeout: 180_000 });

/** `POST /api/inspect`: the status, and the authors and source of a 200 answer. */
async function inspect(server: RunningServer, name: string, bytes: Uint8Array) {
  const { status, body } = await inspectOverHttp(server, name, bytes);
  return status === 200
    ? { status: 200, authors: body.metadata.authors, source: body.metadata.author_source ?? undefined }
    : { status, error: body.error };
}

/** `readAuthor` in the same shape: a `FormatError` as the server's status (415 unsupported, else 422). */
function read(bytes: Uint8Array, fileName: string, primitives: typeof webPrimitives) {
  try {
    const { authors, authorSource } = readAuthor(bytes, { fileName, primitives });
    return { status: 200, authors, source: authorSource };
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    return { status: error.kind === 'unsupported' ? 415 : 422, error: 'INVALID_FORMAT', kind: error.kind };
  }
}

/**
 * One writer suite's files, inspected by the server and read by `readAuthor`: the same answer for each (in its
 * own `describe`, so each suite's writing has the writer run's own setup time).
 */
function expectParity(suite: string, write: (dir: string) => Promise<{ path: string }[]>): void {
  describe(`readAuthor answers as /api/inspect on every file of the ${suite} suite (issue 40)`, () => {
    const run = useWriterRun(`siegel-read-author-${suite}-`, write);

    it('the same authors and author_source, or the same refusal, for every file', async () => {
      const differences: string[] = [];
      let read200 = 0;
      for (const { path } of run.files) {
        const name = basename(path);
        const bytes = new Uint8Array(await readFile(path));
        const server = await inspect(run.server, name, bytes);
        if (server.status === 200) read200++;
        const same = (answer: ReturnType<typeof read>) =>
          JSON.stringify({ ...answer, kind: undefined }) === JSON.stringify({ ...server, kind: undefined });
        const onNode = read(bytes, name, nodePrimitives);
        if (!same(onNode))
          differences.push(
            `${name} (node): server ${JSON.stringify(server)}, readAuthor ${JSON.stringify(onNode)}`,
          );
        const onWeb = read(bytes, name, webPrimitives);
        const refusedAes = onWeb.kind === 'encrypted' && server.status === 200;
        if (!refusedAes && !same(onWeb))
          differences.push(
            `${name} (web): server ${JSON.stringify(server)}, readAuthor ${JSON.stringify(onWeb)}`,
          );
      }
      expect(differences).toEqual([]);
      // The suites' files are mostly signable ones: a run that read none would prove nothing.
      expect(read200).toBeGreaterThan(run.files.length / 2);
    });
  });
}

expectParity('image', async (dir) => writeImages(dir, (await requireTools()).magick));
expectParity('pdf', async (dir) => {
  await requirePdfTools();
  return writePdfs(dir);
});
expectParity('text', async (dir) => {
  await requireTextTools();
  return writeTexts(dir);
});
