// Issue 25, acceptance 1–3 for images: files written during the run by real tools (sharp, exiftool,
// ImageMagick, pngcrush; see image-writers.ts) are signed through the real server over HTTP, against a real
// bunker, with the author exiftool reads from the same file and the field it came from; a compressed-XMP bomb
// is refused with 422 and the limit it hit.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import * as hostile from '../../server/test/hostile-files.js';
import {
  readDescriptionWithExiftool,
  readWithExiftool,
  requireTools,
  writeExtendedXmpJpeg,
  writeImages,
} from './image-writers.js';
import { inspectOverHttp, type RunningServer, signOverHttp } from './server-process.js';
import { useWriterRun } from './writer-run.js';

/** The PNG chunk types in `bytes`, in order, with the keyword of each text chunk. */
function pngChunks(bytes: Buffer): string[] {
  const chunks: string[] = [];
  for (let offset = 8; offset + 8 <= bytes.length; offset += 12 + bytes.readUInt32BE(offset)) {
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + bytes.readUInt32BE(offset));
    chunks.push(type.endsWith('Xt') ? `${type} ${body.toString('latin1', 0, body.indexOf(0))}` : type);
  }
  return chunks;
}

describe('images written by real tools sign with the author exiftool reads (issue 25)', () => {
  const run = useWriterRun('siegel-image-writers-', async (dir) =>
    writeImages(dir, (await requireTools()).magick),
  );

  it('acceptance 1: a PNG written by sharp withXmp (a zTXt chunk) signs with its author', async () => {
    const sharpPng = run.files.find((image) => image.id === 'sharp png xmp several');
    expect(sharpPng).toBeDefined();
    const bytes = await readFile(sharpPng?.path ?? '');
    // What sharp 0.35 writes: the packet compressed in zTXt, which the server refused before (AUTHOR_REQUIRED).
    expect(pngChunks(bytes)).toContain('zTXt XML:com.adobe.xmp');
    expect(pngChunks(bytes).some((chunk) => chunk.startsWith('iTXt'))).toBe(false);
    const inspected = await fetchInspect(run.server, 'sharp.png', bytes);
    expect(inspected.metadata).toMatchObject({
      authors: ['Ana Lima', 'Björn Ødegård', '李小龙'],
      author_source: 'xmp:dc:creator',
    });
  });

  it('signs every writer’s file (ASCII, accented, CJK, several creators) with exiftool’s author and its source', async () => {
    const readings = await readWithExiftool(run.files.map((image) => image.path));
    const failures: string[] = [];
    const sources = new Map<string, number>();
    for (const image of run.files) {
      const reading = readings.get(image.path);
      expect(reading, image.id).toBeDefined();
      if (reading === undefined) continue;
      // The writer really wrote it: exiftool finds the authors (the very names, where the tool keeps them).
      expect(reading.authors.length, `${image.id}: exiftool reads no author`).toBeGreaterThan(0);
      if (image.faithful) expect(reading.authors, image.id).toEqual(image.authors);
      const name = image.path.slice(run.dir.length + 1);
      const { status, body } = await signOverHttp(run.server, name, await readFile(image.path));
      const got = {
        status,
        authors: body.metadata?.authors,
        source: body.metadata?.author_source,
        title: body.metadata?.title,
      };
      const want = {
        status: 200,
        authors: reading.authors,
        source: reading.source,
        title: reading.title ?? null,
      };
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        failures.push(
          `${image.id}: run.server ${JSON.stringify(got)} ${JSON.stringify(body.message ?? '')}, exiftool ${JSON.stringify(want)}`,
        );
      }
      sources.set(want.source ?? '', (sources.get(want.source ?? '') ?? 0) + 1);
    }
    expect(failures).toEqual([]);
    // Every place in the order is exercised by some writer.
    expect([...sources.keys()].sort()).toEqual([
      'exif:Artist',
      'exif:XPAuthor',
      'iptc:By-line',
      'png:Author',
      'xmp:dc:creator',
      'xmp:tiff:Artist',
    ]);
    expect(run.files.length).toBeGreaterThanOrEqual(60);
  }, 180_000);

  it('issue 39: signs what exiftool and Windows read beyond the four — XPAuthor, tiff:Artist, a PNG Author-de', async () => {
    const cases: Array<[string, string, string[]]> = [
      ['exiftool jpeg xpauthor several', 'exif:XPAuthor', ['Ana Lima', 'Björn Ødegård', '李小龙']],
      ['exiftool png xpauthor accented', 'exif:XPAuthor', ['Zoë Ørsted-Müller']],
      ['exiftool jpeg tiff-artist cjk', 'xmp:tiff:Artist', ['山田太郎']],
      ['exiftool png author-de accented', 'png:Author', ['Zoë Ørsted-Müller']],
      ['pngcrush author-de several', 'png:Author', ['Ana Lima, Björn Ødegård, 李小龙']],
    ];
    for (const [id, source, authors] of cases) {
      const image = run.files.find((candidate) => candidate.id === id);
      expect(image, id).toBeDefined();
      // AUTHOR_REQUIRED before issue 39: none of these was read. (The test above signs them: inspect here.)
      const inspected = await fetchInspect(run.server, `${id}.img`, await readFile(image?.path ?? ''));
      expect([inspected.error, inspected.metadata.author_source, inspected.metadata.authors], id).toEqual([
        undefined,
        source,
        authors,
      ]);
    }
  });

  it('reads the Extended XMP exiftool writes past 64 KB of XMP in a JPEG, as exiftool does', async () => {
    const authors = ['Zoë Ørsted', '山田太郎'];
    const path = await writeExtendedXmpJpeg(run.dir, authors);
    const bytes = await readFile(path);
    // exiftool really split it: the extension's APP1 signature is in the file, its GUID named in the packet.
    expect(bytes.includes('http://ns.adobe.com/xmp/extension/\0')).toBe(true);
    const reference = await readDescriptionWithExiftool(path);
    expect(reference.guid).toMatch(/^[0-9A-F]{32}$/);
    const inspected = await fetchInspect(run.server, 'extended.jpeg', bytes);
    expect(inspected.metadata).toMatchObject({ authors, author_source: 'xmp:dc:creator', title: 'Extended' });
    // The description lives in the extension only; the API keeps its first 1 000 characters.
    expect(inspected.metadata.description).toBe(`${reference.description.slice(0, 1000)}…`);
  });

  it('acceptance 2: a compressed-XMP bomb is refused with 422 and the limit it hit, through the worker', async () => {
    const bomb = hostile.pngCompressedXmpBomb(64 * 1024 * 1024);
    expect(bomb.bytes.length).toBeLessThan(128 * 1024); // 64 MiB of XMP in under 128 KB
    const { status, body } = await signOverHttp(run.server, bomb.name, bomb.bytes);
    expect(status).toBe(422);
    expect(body).toMatchObject({ success: false, error: 'INVALID_FORMAT', limit: 'xmp_bytes' });
    expect(body.message).toMatch(/XML:com\.adobe\.xmp.*inflates to more than 1048576 bytes/);
    // Many chunks each within their bound, past the bound of all together.
    const many = hostile.pngCompressedTextBombs(5, 4 * 1024 * 1024);
    const refused = await signOverHttp(run.server, many.name, many.bytes);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: 'INVALID_FORMAT', limit: 'image_inflated_bytes' });
  });

  it('an image that names nobody anywhere is still refused, the message naming every place read', async () => {
    const { status, body } = await signOverHttp(
      run.server,
      'nobody.png',
      hostile.pngAround('nobody.png', []).bytes,
    );
    expect(status).toBe(422);
    expect(body.error).toBe('AUTHOR_REQUIRED');
    expect(body.message).toMatch(
      /XMP `dc:creator`.*IPTC By-line, EXIF `Artist`, XMP `tiff:Artist`, EXIF `XPAuthor` or PNG `Author`/,
    );
  });
});

/** `POST /api/inspect` with the server's token. */
async function fetchInspect(server: RunningServer, name: string, bytes: Uint8Array) {
  const { status, body } = await inspectOverHttp(server, name, bytes);
  expect(status).toBe(200);
  return body;
}
