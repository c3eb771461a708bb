// Images written by real tools during the test run (issue 25): sharp (libvips), exiftool, ImageMagick and
// pngcrush, each putting authors where that tool puts them, and exiftool's reading of each file — the
// reference the server's reading is compared with. The tools come from Debian (`.ci/run` installs them).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { ExifTool } from '../support/exiftool.js';

const run = promisify(execFile);

/** A file one writer made: its path, and the authors and title it was asked to write. */
export interface WrittenImage {
  id: string;
  path: string;
  authors: string[];
  title: string | undefined;
  /** Whether the tool writes the names as given (ImageMagick's PNG text is UTF-8 read as Latin-1: no). */
  faithful: boolean;
}

/** ASCII, accented and CJK authors, and several creators. */
export const AUTHOR_SETS: ReadonlyArray<[string, string[]]> = [
  ['ascii', ['Ada Lovelace']],
  ['accented', ['Zoë Ørsted-Müller']],
  ['cjk', ['山田太郎']],
  ['several', ['Ana Lima', 'Björn Ødegård', '李小龙']],
];

/** An XMP packet as writers frame it: the xpacket wrapper, `dc:creator` as an `rdf:Seq`, `dc:title`. */
export function xmpPacket(authors: string[], title: string): string {
  const items = authors.map((name) => `<rdf:li>${name}</rdf:li>`).join('');
  return `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:creator><rdf:Seq>${items}</rdf:Seq></dc:creator>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${title}</rdf:li></rdf:Alt></dc:title>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`;
}

/**
 * The real ImageMagick: `magick` (7) or Debian's `convert-im6.q16` / `convert` (6), the first that says
 * "Version: ImageMagick" (a `convert` earlier in PATH may be something else).
 */
export async function findImageMagick(): Promise<string> {
  for (const command of ['magick', 'convert-im6.q16', '/usr/bin/convert', 'convert']) {
    try {
      const { stdout } = await run(command, ['-version']);
      if (stdout.includes('Version: ImageMagick')) return command;
    } catch {
      // not this one
    }
  }
  throw new Error('ImageMagick is not installed: apt-get install imagemagick (CI: .ci/run installs it)');
}

/** Fails with what to install when a writer the tests need is missing (no test is skipped for it). */
export async function requireTools(): Promise<{ magick: string }> {
  for (const [command, args, apt] of [
    ['exiftool', ['-ver'], 'libimage-exiftool-perl'],
    ['pngcrush', ['-version'], 'pngcrush'],
    ['webpmux', ['-version'], 'webp'],
  ] as const) {
    try {
      await run(command, [...args]);
    } catch {
      throw new Error(`\`${command}\` is not installed: apt-get install ${apt} (CI: .ci/run installs it)`);
    }
  }
  return { magick: await findImageMagick() };
}

const FORMATS = ['png', 'jpeg', 'webp', 'gif'] as const;
type Format = (typeof FORMATS)[number];

/** Plain 8×6 images of each format, without metadata, for the tools that add metadata to a file. */
async function writeBases(dir: string): Promise<Record<Format, string>> {
  const image = sharp({ create: { width: 8, height: 6, channels: 3, background: '#3a6ea5' } });
  const bases = {} as Record<Format, string>;
  for (const format of FORMATS) {
    bases[format] = join(dir, `base.${format}`);
    await writeFile(bases[format], await image.clone().toFormat(format).toBuffer());
  }
  return bases;
}

/** Every writer, with every author set: the files, written into `dir`. */
export async function writeImages(dir: string, magick: string): Promise<WrittenImage[]> {
  const bases = await writeBases(dir);
  const written: WrittenImage[] = [];
  const add = async (
    id: string,
    extension: string,
    authors: string[],
    title: string | undefined,
    write: (path: string) => Promise<unknown>,
    faithful = true,
  ) => {
    const path = join(dir, `${id.replaceAll(/[^a-z0-9]+/gi, '-')}.${extension}`);
    await write(path);
    written.push({ id, path, authors, title, faithful });
  };
  // One exiftool for all of them (batch mode): 44 files, each a process of its own before.
  const tool = new ExifTool();
  const exiftool = (path: string, base: string, args: string[]) =>
    tool.run(['-q', '-o', path, ...args, base]);
  try {
    for (const [set, authors] of AUTHOR_SETS) {
      const title = (id: string) => `Fjørd ${id}`;
      const packet = (writer: string) => xmpPacket(authors, title(writer));
      const creators = authors.map((name) => `-XMP-dc:Creator=${name}`);
      // sharp (libvips): XMP in a PNG zTXt chunk, a JPEG APP1 segment, a WebP `XMP ` chunk.
      for (const format of ['png', 'jpeg', 'webp'] as const) {
        const id = `sharp ${format} xmp ${set}`;
        await add(id, format, authors, title(id), async (path) => {
          const base = sharp({ create: { width: 8, height: 6, channels: 3, background: '#a53a3a' } });
          await writeFile(path, await base.withXmp(packet(id)).toFormat(format).toBuffer());
        });
      }
      // exiftool: XMP (it does not write WebP), IPTC By-line, EXIF Artist, PNG Author.
      for (const format of ['png', 'jpeg', 'gif'] as const) {
        const id = `exiftool ${format} xmp ${set}`;
        await add(id, format, authors, title(id), (path) =>
          exiftool(path, bases[format], [...creators, `-XMP-dc:Title=${title(id)}`]),
        );
      }
      const iptc = `exiftool jpeg iptc ${set}`;
      await add(iptc, 'jpeg', authors, title(iptc), (path) =>
        exiftool(path, bases.jpeg, [
          '-IPTC:CodedCharacterSet=UTF8',
          ...authors.map((name) => `-IPTC:By-line=${name}`),
          `-IPTC:ObjectName=${title(iptc)}`,
        ]),
      );
      // Artist is one string; several authors are one name to exiftool and to the server alike.
      const artist = authors.join('; ');
      for (const format of ['jpeg', 'png'] as const) {
        await add(`exiftool ${format} exif ${set}`, format, [artist], undefined, (path) =>
          exiftool(path, bases[format], [`-EXIF:Artist=${artist}`]),
        );
      }
      // webpmux (libwebp's container tool): an `XMP ` chunk, and an `EXIF` chunk of exiftool's EXIF block.
      const muxXmp = `webpmux webp xmp ${set}`;
      await add(muxXmp, 'webp', authors, title(muxXmp), async (path) => {
        await writeFile(`${path}.xmp`, packet(muxXmp));
        await run('webpmux', ['-set', 'xmp', `${path}.xmp`, bases.webp, '-o', path]);
      });
      await add(`webpmux webp exif ${set}`, 'webp', [artist], undefined, async (path) => {
        await exiftool(`${path}.jpeg`, bases.jpeg, [`-EXIF:Artist=${artist}`]);
        await writeFile(`${path}.exif`, await tool.run(['-b', '-EXIF', `${path}.jpeg`]));
        await run('webpmux', ['-set', 'exif', `${path}.exif`, bases.webp, '-o', path]);
      });
      // Issue 39: where exiftool and Windows read an author the server did not — Windows' EXIF `XPAuthor`
      // (Explorer's "Authors", people joined by `;`), XMP `tiff:Artist`, a PNG `iTXt` Author with a language tag.
      for (const format of ['jpeg', 'png'] as const) {
        await add(`exiftool ${format} xpauthor ${set}`, format, authors, undefined, (path) =>
          exiftool(path, bases[format], [`-EXIF:XPAuthor=${artist}`]),
        );
      }
      await add(`exiftool jpeg tiff-artist ${set}`, 'jpeg', [artist], undefined, (path) =>
        exiftool(path, bases.jpeg, [`-XMP-tiff:Artist=${artist}`]),
      );
      const author = authors.join(', ');
      const pngAuthorDe = `exiftool png author-de ${set}`;
      await add(pngAuthorDe, 'png', [author], undefined, (path) =>
        exiftool(path, bases.png, [`-PNG:Author-de=${author}`]),
      );
      const pngAuthor = `exiftool png author ${set}`;
      await add(pngAuthor, 'png', [author], title(pngAuthor), (path) =>
        exiftool(path, bases.png, [`-PNG:Author=${author}`, `-PNG:Title=${title(pngAuthor)}`]),
      );
      // ImageMagick: an XMP profile (PNG: a hex "Raw profile type xmp" in zTXt; JPEG: APP1).
      for (const format of ['png', 'jpeg'] as const) {
        const id = `imagemagick ${format} xmp ${set}`;
        await add(id, format, authors, title(id), async (path) => {
          const xmpFile = `${path}.xmp`;
          await writeFile(xmpFile, packet(id));
          await run(magick, [bases.png, '-profile', `XMP:${xmpFile}`, `${format}:${path}`]);
        });
      }
      // pngcrush: XMP in zTXt and in compressed iTXt; the author as tEXt or iTXt.
      for (const chunk of ['ztxt', 'zitxt'] as const) {
        const id = `pngcrush ${chunk} xmp ${set}`;
        const args =
          chunk === 'ztxt'
            ? ['-ztxt', 'b', 'XML:com.adobe.xmp']
            : ['-zitxt', 'b', 'XML:com.adobe.xmp', '', ''];
        await add(id, 'png', authors, title(id), (path) =>
          run('pngcrush', ['-q', ...args, packet(id), bases.png, path]),
        );
      }
      const crushedDe = `pngcrush author-de ${set}`;
      await add(crushedDe, 'png', [author], undefined, (path) =>
        run('pngcrush', ['-q', '-itxt', 'b', 'Author', 'de', 'Autor', author, bases.png, path]),
      );
      const crushed = `pngcrush author ${set}`;
      // pngcrush copies its arguments' bytes (UTF-8) as they are: tEXt (Latin-1) for ASCII only.
      const ascii = [...author].every((character) => (character.codePointAt(0) ?? 0) < 0x80);
      await add(crushed, 'png', [author], undefined, (path) =>
        run('pngcrush', [
          '-q',
          ...(ascii ? ['-text', 'b', 'Author', author] : ['-itxt', 'b', 'Author', '', '', author]),
          bases.png,
          path,
        ]),
      );
    }
    // sharp's EXIF and ImageMagick's PNG text (property → tEXt) in ASCII; ImageMagick writes accented names
    // there as UTF-8 bytes, which PNG defines as Latin-1: exiftool reads them so, and so must the server.
    await add('sharp jpeg exif ascii', 'jpeg', ['Ada Lovelace'], undefined, async (path) => {
      const base = sharp({ create: { width: 8, height: 6, channels: 3, background: '#3aa56e' } });
      await writeFile(
        path,
        await base
          .withExif({ IFD0: { Artist: 'Ada Lovelace' } })
          .jpeg()
          .toBuffer(),
      );
    });
    for (const [set, name, faithful] of [
      ['ascii', 'Ada Lovelace', true],
      ['accented', 'Zoë Ørsted', false],
    ] as const) {
      await add(
        `imagemagick png author ${set}`,
        'png',
        [name],
        `Fjord ${set}`,
        (path) =>
          run(magick, [bases.png, '-set', 'Author', name, '-set', 'Title', `Fjord ${set}`, `png:${path}`]),
        faithful,
      );
    }
  } finally {
    await tool.close();
  }
  return written;
}

/** Where exiftool found the author, in the server's order, and what it read there. */
export interface ExiftoolReading {
  authors: string[];
  source: string | undefined;
  title: string | undefined;
}

/** exiftool's tags in the server's order, and the `author_source` the server names each with. */
const AUTHOR_TAGS: ReadonlyArray<[string, string]> = [
  ['XMP-dc:Creator', 'xmp:dc:creator'],
  ['IPTC:By-line', 'iptc:By-line'],
  ['IFD0:Artist', 'exif:Artist'],
  ['XMP-tiff:Artist', 'xmp:tiff:Artist'],
  ['IFD0:XPAuthor', 'exif:XPAuthor'],
  ['PNG:Author', 'png:Author'],
  ['PNG:Author-de', 'png:Author'],
];

/** exiftool's reading of `paths` (one run): `exiftool -j -G1 -XMP-dc:Creator -By-line -Artist … -PNG:Author …`. */
export async function readWithExiftool(paths: string[]): Promise<Map<string, ExiftoolReading>> {
  const tags = [
    '-XMP-dc:Creator',
    '-IPTC:By-line',
    '-EXIF:Artist',
    '-XMP-tiff:Artist',
    '-EXIF:XPAuthor',
    '-PNG:Author',
    '-PNG:Author-de',
    '-XMP-dc:Title',
    '-IPTC:ObjectName',
    '-PNG:Title',
  ];
  const { stdout } = await run('exiftool', ['-j', '-G1', '-charset', 'utf8', ...tags, ...paths], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const readings = new Map<string, ExiftoolReading>();
  for (const entry of JSON.parse(stdout) as Array<Record<string, unknown>>) {
    const list = (value: unknown) => (value === undefined ? [] : [value].flat().map(String));
    const found = AUTHOR_TAGS.find(([tag]) => list(entry[tag]).length > 0);
    const title = ['XMP-dc:Title', 'IPTC:ObjectName', 'PNG:Title']
      .map((tag) => entry[tag])
      .find((v) => v !== undefined);
    // XPAuthor is one string to exiftool; Windows lists the people in it separated by `;`, as the server does.
    const authors = found === undefined ? [] : list(entry[found[0]]);
    readings.set(String(entry.SourceFile), {
      authors:
        found?.[0] === 'IFD0:XPAuthor'
          ? authors.flatMap((name) => name.split(';').map((n) => n.trim()))
          : authors,
      source: found?.[1],
      title: title === undefined ? undefined : String(title),
    });
  }
  return readings;
}

/**
 * A JPEG whose XMP exiftool splits into a standard packet and an Extended XMP (XMP Part 3, 1.1.3.1): past
 * 64 KB of XMP it moves the largest properties (here a 90 000-character `dc:description`) into APP1
 * `http://ns.adobe.com/xmp/extension/` chunks and names their GUID in `xmpNote:HasExtendedXMP`.
 */
export async function writeExtendedXmpJpeg(dir: string, authors: string[]): Promise<string> {
  const base = join(dir, 'extended-base.jpeg');
  const image = sharp({ create: { width: 8, height: 6, channels: 3, background: '#6e3aa5' } });
  await writeFile(base, await image.jpeg().toBuffer());
  const path = join(dir, 'exiftool-extended-xmp.jpeg');
  const description = `Lang ${'ø'.repeat(45_000)}`;
  await run('exiftool', [
    '-q',
    '-o',
    path,
    ...authors.map((name) => `-XMP-dc:Creator=${name}`),
    '-XMP-dc:Title=Extended',
    `-XMP-dc:Description=${description}`,
    base,
  ]);
  return path;
}

/** exiftool's `dc:description` and `xmpNote:HasExtendedXMP` of a file. */
export async function readDescriptionWithExiftool(path: string) {
  const { stdout } = await run(
    'exiftool',
    ['-j', '-G1', '-XMP-dc:Description', '-XMP-xmpNote:HasExtendedXMP', path],
    {
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const [entry] = JSON.parse(stdout) as Array<Record<string, unknown>>;
  return { description: String(entry?.['XMP-dc:Description']), guid: entry?.['XMP-xmpNote:HasExtendedXMP'] };
}
