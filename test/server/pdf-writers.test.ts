// Issue 25 for PDFs: files written during the run by pdfkit and Chromium (with exiftool adding the author
// Chromium does not write, and qpdf rewriting them into every cross-reference form and every permissions-only
// encryption; see pdf-writers.ts) are signed through the real server over HTTP, against a real bunker, with
// the author exiftool reads from the same file and the field it came from; hostile encrypted PDFs are refused
// with 422 and the bound they hit, through the worker.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import * as hostile from '../../server/test/hostile-files.js';
import { xmpPacket } from './image-writers.js';
import {
  AUTHOR_SETS,
  impliedReading,
  readPdfsWithExiftool,
  requirePdfTools,
  writeGhostscriptPdf,
  writePasswordPdf,
  writePdfkit,
  writePdfs,
} from './pdf-writers.js';
import { signOverHttp } from './server-process.js';
import { useWriterRun } from './writer-run.js';

// Timeouts (docs/testing.md): PDFs written by Chromium, pdfkit and qpdf: 32 s among parallel files
vi.setConfig({ testTimeout: 120_000 });

describe('PDFs written by real tools sign with the author exiftool reads (issue 25)', () => {
  const run = useWriterRun('siegel-pdf-writers-', async (dir) => {
    await requirePdfTools();
    return writePdfs(dir);
  });

  it('Chromium prints <title> as /Title and writes no author (exiftool reads none)', async () => {
    const readings = await readPdfsWithExiftool([join(run.dir, 'chromium-several.pdf')]);
    expect([...readings.values()][0]).toMatchObject({
      pdfAuthor: undefined,
      xmpCreators: [],
      pdfTitle: 'Fjørd several 李',
    });
    const { status, body } = await signOverHttp(
      run.server,
      'chromium.pdf',
      await readFile(join(run.dir, 'chromium-several.pdf')),
    );
    expect(status).toBe(422);
    expect(body.error).toBe('AUTHOR_REQUIRED');
  });

  it('signs every writer’s file (ASCII, accented, CJK, several creators; every form) with exiftool’s author and its source', async () => {
    const readings = await readPdfsWithExiftool(run.files.map((pdf) => pdf.path));
    const failures: string[] = [];
    const seen = {
      sources: new Set<string>(),
      encryptions: new Set<string>(),
      linearized: 0,
      objectStreams: 0,
    };
    for (const pdf of run.files) {
      const reading = readings.get(pdf.path);
      expect(reading, pdf.id).toBeDefined();
      if (reading === undefined) continue;
      const want = impliedReading(reading);
      // The writer really wrote it: exiftool opens the file and reads the very names, in the form asked for.
      expect(reading.warning, pdf.id).toBeUndefined();
      expect(want.authors, pdf.id).toEqual(pdf.authors);
      expect(reading.encryption, pdf.id).toBe(pdf.encryption);
      expect(reading.linearized, pdf.id).toBe(pdf.linearized ?? false);
      const bytes = await readFile(pdf.path);
      expect(bytes.includes('/ObjStm'), pdf.id).toBe(pdf.objectStreams ?? false);
      const { status, body } = await signOverHttp(run.server, pdf.path.slice(run.dir.length + 1), bytes);
      const got = {
        status,
        authors: body.metadata?.authors,
        source: body.metadata?.author_source,
        title: body.metadata?.title,
      };
      const expected = { status: 200, authors: want.authors, source: want.source, title: want.title ?? null };
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        failures.push(
          `${pdf.id}: run.server ${JSON.stringify(got)} ${JSON.stringify(body.message ?? '')}, exiftool ${JSON.stringify(expected)}`,
        );
      }
      seen.sources.add(want.source ?? '');
      if (pdf.encryption) seen.encryptions.add(pdf.encryption);
      if (pdf.linearized) seen.linearized++;
      if (pdf.objectStreams) seen.objectStreams++;
    }
    expect(failures).toEqual([]);
    // Both places are exercised, every revision of the standard handler, and every cross-reference form.
    expect([...seen.sources].sort()).toEqual(['pdf:Author', 'xmp:dc:creator']);
    expect([...seen.encryptions].sort()).toEqual([
      'Standard V1.2 (40-bit)',
      'Standard V2.3 (128-bit)',
      'Standard V4.4 (128-bit)',
      'Standard V5.5 (256-bit)',
      'Standard V5.6 (256-bit)',
    ]);
    expect(seen.linearized).toBeGreaterThanOrEqual(8);
    expect(seen.objectStreams).toBeGreaterThanOrEqual(16);
    expect(run.files.length).toBeGreaterThanOrEqual(120);
  }, 180_000);

  it('issue 39: Ghostscript’s pdfmark writes UTF-8 without a byte order mark — signed as the name written, not mojibake', async () => {
    for (const [set, authors] of AUTHOR_SETS) {
      const path = join(run.dir, `ghostscript-${set}.pdf`);
      const title = `Fjørd ${set}`;
      await writeGhostscriptPdf(path, authors.join('; '), title);
      const bytes = await readFile(path);
      // Ghostscript kept the UTF-8 bytes (`/Author(Bj\303\266rn …)`): exiftool, as pdf.js, reads them as
      // PDFDocEncoding. So did the server before issue 39, and signed `BjÃ¶rn ÃŸdegÃ¥rd` into a public event.
      const [reading] = (await readPdfsWithExiftool([path])).values();
      const ascii = authors.every((name) => /^[\x20-\x7e]*$/.test(name));
      expect(reading?.pdfAuthor === authors.join('; '), set).toBe(ascii);
      const { status, body } = await signOverHttp(run.server, `ghostscript-${set}.pdf`, bytes);
      expect(
        [status, body.metadata?.authors, body.metadata?.author_source, body.metadata?.title],
        set,
      ).toEqual([200, authors, 'pdf:Author', title]);
    }
  });

  it('an empty /Author (LaTeX’s default) does not hide the XMP creators (pdfkit, AES-256)', async () => {
    const path = join(run.dir, 'latex-like.pdf');
    const authors = ['Zoë Ørsted', '山田太郎'];
    await writePdfkit(path, {
      version: '1.7ext3',
      author: '',
      title: 'Wie LaTeX',
      creators: authors,
      encrypt: true,
    });
    const bytes = await readFile(path);
    const [reading] = (await readPdfsWithExiftool([path])).values();
    expect(reading).toMatchObject({
      pdfAuthor: '',
      xmpCreators: authors,
      encryption: 'Standard V5.5 (256-bit)',
    });
    const { status, body } = await signOverHttp(run.server, 'latex-like.pdf', bytes);
    expect(status).toBe(200);
    expect(body.metadata).toMatchObject({
      authors,
      author_source: 'xmp:dc:creator',
    });
  });

  it('the XMP of an embedded photo is not the document’s: no catalog /Metadata, no author (as exiftool reads it)', async () => {
    const path = join(run.dir, 'photo-inside.pdf');
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#884422' } })
      .jpeg()
      .withXmp(xmpPacket(['Photo Grapher'], 'Harbour'))
      .toBuffer();
    await writePdfkit(path, { version: '1.3', author: '', title: 'Report', image: photo });
    const bytes = await readFile(path);
    // The photographer's packet is in the file, unencoded in the JPEG stream; exiftool reads no creator.
    expect(bytes.includes('Photo Grapher')).toBe(true);
    const [reading] = (await readPdfsWithExiftool([path])).values();
    expect(reading).toMatchObject({ pdfAuthor: '', xmpCreators: [] });
    const { status, body } = await signOverHttp(run.server, 'photo-inside.pdf', bytes);
    expect({ status, error: body.error }).toEqual({ status: 422, error: 'AUTHOR_REQUIRED' });
  });

  it('a PDF that needs a real user password is refused with 422 and says so', async () => {
    const path = await writePasswordPdf(run.dir, join(run.dir, 'chromium-ascii.pdf'));
    const { status, body } = await signOverHttp(run.server, 'password.pdf', await readFile(path));
    expect(status).toBe(422);
    expect(body).toMatchObject({ success: false, error: 'INVALID_FORMAT' });
    expect(body.message).toMatch(/^This PDF is protected by a password/);
  });

  it('hostile encrypted PDFs are refused with 422 and the limit they hit, through the worker', async () => {
    const cases: Array<[hostile.HostileFile, string]> = [
      [hostile.pdfEncryptedXmpBomb(), 'xmp_bytes'],
      [hostile.pdfEncryptedObjectStreamBombs(5), 'pdf_inflated_bytes'],
      [hostile.pdfEncryptedStreamsPastDecryptBudget(17), 'pdf_decrypted_bytes'],
    ];
    for (const [file, limit] of cases) {
      const { status, body } = await signOverHttp(run.server, file.name, file.bytes);
      expect(status, file.name).toBe(422);
      expect(body, file.name).toMatchObject({ success: false, error: 'INVALID_FORMAT', limit });
      expect(body.message, file.name).toMatch(/^This PDF/);
    }
  });
});
