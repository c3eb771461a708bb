// embedAuthor on images sharp wrote, read back by exiftool (XMP-dc:Creator, XMP-dc:Title, and its
// `-validate` verdict) and decoded by libvips to the same pixels. The server's reading of the same output
// is checked in test/client/embed-server.test.ts.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbedError, embedAuthor } from '../src/index.js';
import {
  AUTHOR_CASES,
  IMAGE_KINDS,
  type ImageKind,
  readWithExiftool,
  writeCreatorWithExiftool,
  writeImages,
} from './support/inputs.js';

let dir: string;
let images: Record<ImageKind, Uint8Array>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'siegel-client-embed-'));
  images = await writeImages();
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The pixels and size libvips decodes from `bytes`. */
async function decode(bytes: Uint8Array) {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, pixels: data.toString('base64') };
}

describe('embedAuthor on PNG, JPEG, WebP and GIF', () => {
  it('writes every author case so that exiftool reads it back, and leaves the image as it was', async () => {
    const paths = new Map<string, { authors: string[]; title: string }>();
    for (const [kind, extension] of Object.entries(IMAGE_KINDS) as Array<[ImageKind, string]>) {
      for (const { id, author, authors, title } of AUTHOR_CASES) {
        const output = await embedAuthor(images[kind], { author, title });
        expect(await decode(output), `${kind} ${id}`).toEqual(await decode(images[kind]));
        const path = join(dir, `${kind}-${id}.${extension}`);
        await writeFile(path, output);
        paths.set(path, { authors, title });
      }
    }
    const readings = await readWithExiftool([...paths.keys()]);
    expect(readings.size).toBe(paths.size);
    for (const [path, want] of paths) {
      const reading = readings.get(path);
      expect(
        { creators: reading?.creators, title: reading?.title, validate: reading?.validate },
        path,
      ).toEqual({
        creators: want.authors,
        title: want.title,
        validate: 'OK',
      });
      expect(reading?.warning, path).toBeUndefined();
    }
  });

  it('replaces an XMP packet that was there, leaving one packet with the new author', async () => {
    const oldXmp =
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
      '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq>' +
      '<rdf:li>Old Name</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>';
    const base = sharp({ create: { width: 4, height: 4, channels: 3, background: '#102030' } }).withXmp(
      oldXmp,
    );
    const inputs: Record<string, Uint8Array> = {
      'old.png': await base.clone().png().toBuffer(),
      'old.jpg': await base.clone().jpeg().toBuffer(),
      'old.webp': await base.clone().webp().toBuffer(),
    };
    // sharp writes no XMP into a GIF; exiftool does.
    const gif = join(dir, 'old-exiftool.gif');
    await writeFile(gif, images.gif);
    await writeCreatorWithExiftool(gif, 'Old Name');
    Object.assign(inputs, { 'old.gif': await readFile(gif) });
    const before: string[] = [];
    const after: string[] = [];
    for (const [name, bytes] of Object.entries(inputs)) {
      before.push(join(dir, `before-${name}`));
      after.push(join(dir, `after-${name}`));
      await writeFile(join(dir, `before-${name}`), bytes);
      expect(Buffer.from(bytes).toString('latin1'), name).toMatch(/zTXt|Old Name/);
      const output = await embedAuthor(bytes, { author: 'Ana Lima' });
      await writeFile(join(dir, `after-${name}`), output);
      const text = Buffer.from(output).toString('latin1');
      expect(text.includes('zTXt') || text.includes('Old Name'), `${name}: no old packet is left`).toBe(
        false,
      );
    }
    // sharp writes the PNG's packet compressed (zTXt): exiftool is what shows it is there, then gone.
    for (const [path, reading] of await readWithExiftool(before))
      expect(reading.creators, path).toEqual(['Old Name']);
    for (const [path, reading] of await readWithExiftool(after)) {
      expect(reading.creators, path).toEqual(['Ana Lima']);
      expect(reading.validate, path).toBe('OK');
    }
  });

  it('writes a twice-embedded file with the second author only (idempotent structure)', async () => {
    for (const kind of Object.keys(IMAGE_KINDS) as ImageKind[]) {
      const once = await embedAuthor(images[kind], { author: 'Ana Lima', title: 'One' });
      const twice = await embedAuthor(once, { author: '李小龙', title: 'Two' });
      const again = await embedAuthor(images[kind], { author: '李小龙', title: 'Two' });
      expect(Buffer.from(twice).equals(Buffer.from(again)), kind).toBe(true);
    }
  });

  it('keeps a lossless WebP with alpha extended with its alpha flag, and an animated WebP animated', async () => {
    const alpha = await embedAuthor(images['webp-lossless-alpha'], { author: 'Ana Lima' });
    // VP8X flags: XMP (0x04) and alpha (0x10); canvas 7×5 stored as width-1, height-1.
    expect(Buffer.from(alpha).subarray(12, 16).toString('latin1')).toBe('VP8X');
    expect(alpha[20]).toBe(0x14);
    expect([alpha[24], alpha[27]]).toEqual([6, 4]);
    expect((await sharp(alpha).metadata()).hasAlpha).toBe(true);

    const frame = (background: string) =>
      sharp({ create: { width: 6, height: 6, channels: 3, background } })
        .png()
        .toBuffer();
    const animated = await sharp([await frame('#aa3300'), await frame('#0033aa')], {
      join: { animated: true },
    })
      .webp({ loop: 0 })
      .toBuffer();
    expect((await sharp(animated, { animated: true }).metadata()).pages).toBe(2);
    const output = await embedAuthor(animated, { author: 'Ana Lima' });
    expect((await sharp(output, { animated: true }).metadata()).pages).toBe(2);
    const path = join(dir, 'animated.webp');
    await writeFile(path, output);
    expect((await readWithExiftool([path])).get(path)?.creators).toEqual(['Ana Lima']);
  });

  it('refuses damaged images with DAMAGED_FILE and says what is wrong', async () => {
    const png = Buffer.from(images.png);
    png[20] = (png[20] as number) ^ 0xff; // inside IHDR: its checksum no longer matches
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ['PNG with a wrong checksum', png, /PNG is damaged .*checksum/],
      ['truncated PNG', images.png.subarray(0, 40), /PNG is damaged/],
      ['truncated JPEG', images.jpeg.subarray(0, 30), /JPEG is damaged/],
      ['truncated WebP', images['webp-lossy'].subarray(0, 30), /WebP is damaged/],
      ['GIF without its trailer', images.gif.subarray(0, images.gif.length - 1), /GIF is damaged .*trailer/],
    ];
    for (const [what, bytes, message] of cases) {
      const error = await embedAuthor(bytes, { author: 'Ana Lima' }).catch((caught: unknown) => caught);
      expect(error, what).toBeInstanceOf(EmbedError);
      expect((error as EmbedError).code, what).toBe('DAMAGED_FILE');
      expect((error as EmbedError).message, what).toMatch(message);
    }
  });
});
