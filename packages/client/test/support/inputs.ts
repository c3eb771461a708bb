// Real input files for embedAuthor, written during the test run by real writers: sharp (libvips) for the
// images, pdf-lib and qpdf for PDFs; and exiftool's reading of files, the reference users check with.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';

const run = promisify(execFile);

/** The author cases every format is tested with: ASCII, accented, CJK, and two authors. */
export const AUTHOR_CASES: ReadonlyArray<{
  id: string;
  author: string | string[];
  authors: string[];
  title: string;
}> = [
  { id: 'ascii', author: 'Ana Lima', authors: ['Ana Lima'], title: 'Harbour at dawn' },
  {
    id: 'accented',
    author: 'Björn Ødegård',
    authors: ['Björn Ødegård'],
    title: 'Fjord & <Licht> "am" Morgen',
  },
  { id: 'cjk', author: '李小龙', authors: ['李小龙'], title: '龙的传人' },
  {
    id: 'two',
    author: ['Ana Lima', 'Björn Ødegård'],
    authors: ['Ana Lima', 'Björn Ødegård'],
    title: 'Zwei Namen',
  },
];

/** An image kind sharp writes, and its file extension. */
export const IMAGE_KINDS = {
  png: 'png',
  jpeg: 'jpg',
  'webp-lossy': 'webp',
  'webp-lossless-alpha': 'webp',
  gif: 'gif',
} as const;
export type ImageKind = keyof typeof IMAGE_KINDS;

/** 8×6 images without metadata (an alpha channel for the lossless WebP), as sharp writes them. */
export async function writeImages(): Promise<Record<ImageKind, Uint8Array>> {
  const opaque = sharp({ create: { width: 8, height: 6, channels: 3, background: '#3a6ea5' } });
  const alpha = sharp({
    create: { width: 7, height: 5, channels: 4, background: { r: 200, g: 30, b: 90, alpha: 0.5 } },
  });
  return {
    png: await opaque.clone().png().toBuffer(),
    jpeg: await opaque.clone().jpeg().toBuffer(),
    'webp-lossy': await opaque.clone().webp().toBuffer(),
    'webp-lossless-alpha': await alpha.clone().webp({ lossless: true }).toBuffer(),
    gif: await opaque.clone().gif().toBuffer(),
  };
}

/** Two PDFs as pdf-lib writes them: one with object streams and a cross-reference stream, one classic. */
export async function writePdfs(): Promise<{ objectStreams: Uint8Array; classic: Uint8Array }> {
  const document = await PDFDocument.create();
  document.addPage([200, 100]).drawText('Siegel', { x: 10, y: 50 });
  document.setProducer('pdf-lib');
  document.setCreator('the embedAuthor tests');
  return {
    objectStreams: await document.save({ useObjectStreams: true }),
    classic: await document.save({ useObjectStreams: false }),
  };
}

/** Markdown with frontmatter that has other keys (and an old author), and plain text without any. */
export const TEXTS = {
  markdown:
    '---\nlayout: post\nauthor: Old Name\ndate: 2026-01-01\ntags:\n  - harbour\n  - dawn\n---\n# Harbour\n\nText.\n',
  text: 'Plain notes\r\nsecond line\r\n',
} as const;

/** What exiftool reads from a file: XMP `dc:creator` and `dc:title`, PDF `/Author` and `/Title`. */
export interface ExiftoolReading {
  creators: string[];
  title: string | undefined;
  pdfAuthor: string | undefined;
  pdfTitle: string | undefined;
  /** `-validate`'s verdict (`OK`, or the problems) and exiftool's own warnings. */
  validate: string | undefined;
  warning: string | undefined;
}

/** `exiftool -j -G1 -XMP-dc:Creator -XMP-dc:Title -PDF:Author -PDF:Title -validate` on `paths`, in one run. */
export async function readWithExiftool(paths: string[]): Promise<Map<string, ExiftoolReading>> {
  const { stdout } = await run(
    'exiftool',
    [
      '-j',
      '-G1',
      '-charset',
      'utf8',
      '-XMP-dc:Creator',
      '-XMP-dc:Title',
      '-PDF:Author',
      '-PDF:Title',
      '-validate',
      '-warning',
      ...paths,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const readings = new Map<string, ExiftoolReading>();
  const text = (value: unknown) => (value === undefined ? undefined : String(value));
  for (const entry of JSON.parse(stdout) as Array<Record<string, unknown>>) {
    const creator = entry['XMP-dc:Creator'];
    readings.set(String(entry.SourceFile), {
      creators: creator === undefined ? [] : [creator].flat().map(String),
      title: text(entry['XMP-dc:Title']),
      pdfAuthor: text(entry['PDF:Author']),
      pdfTitle: text(entry['PDF:Title']),
      validate: text(entry['ExifTool:Validate']),
      warning: text(entry['ExifTool:Warning']),
    });
  }
  return readings;
}

/** `qpdf --check`: its exit code (0: no problem; 2 errors, 3 warnings) and output. */
export async function checkWithQpdf(path: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('qpdf', ['--check', path]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      output: `${failed.stdout}${failed.stderr}`,
    };
  }
}

/** Run qpdf with `args` (to make variants of a PDF: linearized, encrypted, object streams). */
export async function qpdf(args: string[]): Promise<void> {
  try {
    await run('qpdf', args);
  } catch (error) {
    // qpdf exits 3 for success with warnings.
    if ((error as { code?: number }).code !== 3) throw error;
  }
}

/** Write `dc:creator` into the file at `path` with exiftool (in place), as a tool before ours would have. */
export async function writeCreatorWithExiftool(path: string, creator: string): Promise<void> {
  await run('exiftool', ['-q', '-overwrite_original', `-XMP-dc:Creator=${creator}`, path]);
}
