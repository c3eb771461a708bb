// PDFs written by real tools during the test run (issue 25): pdfkit (npm) and Chromium's print to PDF
// (playwright-core). Chromium writes the page's <title> as `/Title` but no author (not even from
// <meta name="author">), so exiftool adds one as an incremental update, as a user would. qpdf then reshapes
// files into every cross-reference form (object and cross-reference streams, linearized) and encrypts them
// for permissions only (empty user password) in every revision, and exiftool updates some again. exiftool's
// reading of each file is the reference. The tools come from Debian (`.ci/run` installs them).
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import PDFDocument from 'pdfkit';
import { launchChromium } from '../support/chromium.js';
import { ExifTool } from '../support/exiftool.js';

const run = promisify(execFile);

/** A file one writer made: its path, the authors it was asked to write, and what it should be. */
export interface WrittenPdf {
  id: string;
  path: string;
  authors: string[];
  /** exiftool's `PDF:Encryption` for the file, when the writer encrypted it. */
  encryption?: string;
  /** Whether the file has object streams (and so cross-reference streams) / is linearized. */
  objectStreams?: boolean;
  linearized?: boolean;
}

/** ASCII, accented and CJK authors, and several creators. */
export const AUTHOR_SETS: ReadonlyArray<[string, string[]]> = [
  ['ascii', ['Ana Lima']],
  ['accented', ['Björn Ødegård']],
  ['cjk', ['李小龙']],
  ['several', ['Ana Lima', 'Björn Ødegård', '李小龙']],
];

/** exiftool's `PDF:Encryption` for each pdfkit `pdfVersion` (pdfkit picks the algorithm by version). */
const PDFKIT_ENCRYPTION = {
  '1.3': 'Standard V1.2 (40-bit)',
  '1.4': 'Standard V2.3 (128-bit)',
  '1.6': 'Standard V4.4 (128-bit)',
  '1.7': 'Standard V4.4 (128-bit)',
  '1.7ext3': 'Standard V5.5 (256-bit)',
} as const;

/** qpdf's rewrites: object streams, linearized, and permissions-only encryption in every revision. */
const QPDF_FORMS: ReadonlyArray<[string, string[], Partial<WrittenPdf>]> = [
  ['objstm', ['--object-streams=generate'], { objectStreams: true }],
  ['linearized', ['--linearize'], { linearized: true }],
  [
    'rc4-40 r2',
    ['--allow-weak-crypto', '--encrypt', '', 'owner', '40', '--'],
    { encryption: 'Standard V1.2 (40-bit)' },
  ],
  [
    'rc4-128 r3',
    ['--allow-weak-crypto', '--encrypt', '', 'owner', '128', '--'],
    { encryption: 'Standard V2.3 (128-bit)' },
  ],
  [
    'rc4-128 r4',
    ['--allow-weak-crypto', '--encrypt', '', 'owner', '128', '--force-V4', '--use-aes=n', '--'],
    { encryption: 'Standard V4.4 (128-bit)' },
  ],
  [
    'aes-128 r4',
    ['--encrypt', '', 'owner', '128', '--use-aes=y', '--'],
    { encryption: 'Standard V4.4 (128-bit)' },
  ],
  [
    'aes-128 r4 clear metadata',
    ['--encrypt', '', 'owner', '128', '--use-aes=y', '--cleartext-metadata', '--'],
    { encryption: 'Standard V4.4 (128-bit)' },
  ],
  [
    'aes-256 r5',
    ['--encrypt', '', 'owner', '256', '--force-R5', '--'],
    { encryption: 'Standard V5.5 (256-bit)' },
  ],
  [
    'aes-256 r5 objstm',
    ['--object-streams=generate', '--encrypt', '', 'owner', '256', '--force-R5', '--'],
    { encryption: 'Standard V5.5 (256-bit)', objectStreams: true },
  ],
];

/** Fails with what to install when a writer the tests need is missing (no test is skipped for it). */
export async function requirePdfTools(): Promise<void> {
  for (const [command, args, apt] of [
    ['exiftool', ['-ver'], 'libimage-exiftool-perl'],
    ['qpdf', ['--version'], 'qpdf'],
    ['gs', ['--version'], 'ghostscript'],
  ] as const) {
    try {
      await run(command, [...args]);
    } catch {
      throw new Error(`\`${command}\` is not installed: apt-get install ${apt} (CI: .ci/run installs it)`);
    }
  }
}

/** An XMP `rdf:Description` with `dc:creator` as an `rdf:Seq` (for pdfkit's `appendXML`). */
function creatorXml(authors: string[]): string {
  const items = authors.map((name) => `<rdf:li>${name}</rdf:li>`).join('');
  return `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq>${items}</rdf:Seq></dc:creator></rdf:Description>`;
}

/**
 * A pdfkit file at `path`: `/Author` and `/Title` in Info (pdfkit mirrors them into XMP from PDF 1.4 on), `creators`
 * added to the XMP, and permissions-only encryption when `encrypt` (pdfkit picks RC4 or AES by version).
 */
export async function writePdfkit(
  path: string,
  options: {
    version: keyof typeof PDFKIT_ENCRYPTION;
    author: string;
    title: string;
    creators?: string[];
    encrypt?: boolean;
    /** An image to place on the page (pdfkit keeps a JPEG's bytes, its own XMP included, as they are). */
    image?: Buffer;
  },
): Promise<void> {
  const doc = new PDFDocument({
    pdfVersion: options.version,
    info: { Author: options.author, Title: options.title },
    ...(options.encrypt
      ? { ownerPassword: 'owner', permissions: { printing: 'lowResolution' as const } }
      : {}),
  });
  if (options.creators !== undefined) doc.appendXML(creatorXml(options.creators));
  const done = new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path);
    out.on('finish', resolve).on('error', reject);
    doc.pipe(out);
  });
  doc.text(`Siegel ${options.title}`);
  if (options.image !== undefined) doc.image(options.image, 50, 100);
  doc.end();
  await done;
}

/**
 * A one-page PDF by Ghostscript (`pdfwrite`) at `path`, its `/Author` and `/Title` set by a `/DOCINFO`
 * pdfmark in a UTF-8 PostScript file, as a user writes one: Ghostscript keeps the bytes, so a name beyond
 * ASCII lands in the PDF as UTF-8 without a byte order mark (and in its XMP as that read as PDFDocEncoding).
 */
export async function writeGhostscriptPdf(path: string, author: string, title: string): Promise<void> {
  const psString = (text: string) => text.replace(/[()\\]/g, (c) => `\\${c}`);
  const source = `${path}.ps`;
  await writeFile(
    source,
    [
      '%!PS',
      '/Helvetica findfont 12 scalefont setfont 72 720 moveto (Siegel) show showpage',
      `[ /Author (${psString(author)}) /Title (${psString(title)}) /DOCINFO pdfmark`,
      '',
    ].join('\n'),
  );
  await run('gs', [
    '-q',
    '-dNOPAUSE',
    '-dBATCH',
    '-dSAFER',
    '-sDEVICE=pdfwrite',
    `-sOutputFile=${path}`,
    source,
  ]);
}

/** Every writer, with every author set: the files, written into `dir`. */
export async function writePdfs(dir: string): Promise<WrittenPdf[]> {
  const written: WrittenPdf[] = [];
  const pathOf = (id: string) => join(dir, `${id.replaceAll(/[^a-z0-9]+/gi, '-')}.pdf`);
  for (const [set, authors] of AUTHOR_SETS) {
    const joined = authors.join('; ');
    // pdfkit: Info only (PDF 1.3), Info mirrored into XMP, an empty `/Author` with the creators in XMP
    // only, and permissions-only encryption in every algorithm pdfkit writes.
    const pdfkit = async (
      id: string,
      options: Parameters<typeof writePdfkit>[1],
      extra: Partial<WrittenPdf> = {},
    ) => {
      const path = pathOf(id);
      await writePdfkit(path, options);
      written.push({ id, path, authors, ...extra });
    };
    await pdfkit(`pdfkit 1.3 info ${set}`, { version: '1.3', author: joined, title: `Fjørd ${set}` });
    await pdfkit(`pdfkit 1.7 info+xmp ${set}`, { version: '1.7', author: joined, title: `Fjørd ${set} xmp` });
    // `/Author ()` as LaTeX writes by default (pdfkit mirrors no empty author into XMP).
    await pdfkit(`pdfkit 1.7 empty author+xmp ${set}`, {
      version: '1.7',
      author: '',
      title: 'Fjørd leer',
      creators: authors,
    });
    for (const [version, encryption] of Object.entries(PDFKIT_ENCRYPTION) as Array<
      [keyof typeof PDFKIT_ENCRYPTION, string]
    >) {
      const title = `Verschlüsselt ${version}`;
      await pdfkit(
        `pdfkit ${version} encrypted info ${set}`,
        { version, author: joined, title, encrypt: true },
        { encryption },
      );
      if (version === '1.3') continue; // pdfkit writes no XMP in PDF 1.3
      await pdfkit(
        `pdfkit ${version} encrypted empty author+xmp ${set}`,
        { version, author: '', title, creators: authors, encrypt: true },
        { encryption },
      );
    }
  }
  await writeChromiumPdfs(dir, pathOf, written);
  return written;
}

/** Chromium prints one page per author set; exiftool adds the authors; qpdf and exiftool rewrite those. */
async function writeChromiumPdfs(
  dir: string,
  pathOf: (id: string) => string,
  written: WrittenPdf[],
): Promise<void> {
  const browser = await launchChromium();
  const bases = new Map<string, string>();
  try {
    const page = await browser.context.newPage();
    for (const [set] of AUTHOR_SETS) {
      await page.setContent(
        `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Fjørd ${set} 李</title><meta name="author" content="Nobody Reads This"></head><body><p>Siegel ${set}</p></body></html>`,
      );
      const base = join(dir, `chromium-${set}.pdf`);
      await writeFile(base, await page.pdf({ format: 'A5' }));
      bases.set(set, base);
    }
  } finally {
    await browser.close();
  }
  // One exiftool for all of them (batch mode), not a process per file.
  const tool = new ExifTool();
  const exiftool = (args: string[], from: string, to: string) => tool.run(['-q', '-o', to, ...args, from]);
  const infoArgs = (authors: string[]) => [`-PDF:Author=${authors.join('; ')}`];
  const xmpArgs = (authors: string[]) => authors.map((name) => `-XMP-dc:Creator=${name}`);
  try {
    await Promise.all(
      AUTHOR_SETS.map(async ([set, authors]) => {
        const base = bases.get(set) as string;
        const add = (id: string, extra: Partial<WrittenPdf> = {}, names = authors) => {
          written.push({ id, path: pathOf(id), authors: names, ...extra });
          return pathOf(id);
        };
        const info = add(`chromium+exiftool info ${set}`);
        const xmp = add(`chromium+exiftool xmp ${set}`);
        await exiftool(infoArgs(authors), base, info);
        await exiftool(xmpArgs(authors), base, xmp);
        // A placeholder `/Author` beside the real creators in XMP.
        await exiftool(
          ['-PDF:Author=Unknown', ...xmpArgs(authors)],
          base,
          add(`chromium+exiftool placeholder info+xmp ${set}`),
        );
        for (const [form, args, extra] of QPDF_FORMS) {
          for (const [kind, from] of [
            ['info', info],
            ['xmp', xmp],
          ] as const) {
            await run('qpdf', [...args, from, add(`chromium+exiftool ${kind} qpdf ${form} ${set}`, extra)]);
          }
        }
        // exiftool again on top: an update that replaces only the XMP (of an encrypted file, and of one with
        // cross-reference streams), and one that replaces `/Author` in a linearized file.
        const renamed = [...authors].reverse().map((name) => `${name} II`);
        for (const [form, extra] of [
          ['aes-256 r5', { encryption: 'Standard V5.5 (256-bit)' }],
          ['objstm', { objectStreams: true }],
        ] as const) {
          const from = pathOf(`chromium+exiftool xmp qpdf ${form} ${set}`);
          await exiftool(
            xmpArgs(renamed),
            from,
            add(`chromium+exiftool xmp qpdf ${form} +exiftool xmp ${set}`, extra, renamed),
          );
        }
        // Revision 6 (PDF 2.0, qpdf's default for 256 bits) once, its XMP encrypted: exiftool takes about
        // 10 s to decrypt such a file (its hash in pure Perl), so the other forms use revision 5, which
        // differs from it only in the key's hash.
        if (set === 'several') {
          const r6 = add(`chromium+exiftool xmp qpdf aes-256 r6 ${set}`, {
            encryption: 'Standard V5.6 (256-bit)',
          });
          await run('qpdf', ['--encrypt', '', 'owner', '256', '--', xmp, r6]);
        }
        const linearized = pathOf(`chromium+exiftool info qpdf linearized ${set}`);
        await exiftool(
          infoArgs(renamed),
          linearized,
          add(`chromium+exiftool info qpdf linearized +exiftool info ${set}`, {}, renamed),
        );
      }),
    );
  } finally {
    await tool.close();
  }
}

/** What exiftool reads from a PDF: `-PDF:Author`, `-XMP-dc:Creator`, titles, encryption, linearization. */
export interface ExiftoolPdfReading {
  pdfAuthor: string | undefined;
  xmpCreators: string[];
  pdfTitle: string | undefined;
  xmpTitle: string | undefined;
  encryption: string | undefined;
  linearized: boolean;
  warning: string | undefined;
}

/** exiftool's reading of `paths` (`exiftool -j -G1 …`), in two runs side by side. */
export async function readPdfsWithExiftool(paths: string[]): Promise<Map<string, ExiftoolPdfReading>> {
  const half = Math.ceil(paths.length / 2);
  const parts = await Promise.all([paths.slice(0, half), paths.slice(half)].map(readWithExiftool));
  return new Map(parts.flatMap((part) => [...part]));
}

async function readWithExiftool(paths: string[]): Promise<Map<string, ExiftoolPdfReading>> {
  const readings = new Map<string, ExiftoolPdfReading>();
  if (paths.length === 0) return readings;
  const tags = [
    '-PDF:Author',
    '-XMP-dc:Creator',
    '-PDF:Title',
    '-XMP-dc:Title',
    '-PDF:Encryption',
    '-PDF:Linearized',
    '-Warning',
  ];
  const { stdout } = await run('exiftool', ['-j', '-G1', '-charset', 'utf8', ...tags, ...paths], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const text = (value: unknown) => (value === undefined ? undefined : String(value));
  for (const entry of JSON.parse(stdout) as Array<Record<string, unknown>>) {
    const creators = entry['XMP-dc:Creator'];
    readings.set(String(entry.SourceFile), {
      pdfAuthor: text(entry['PDF:Author']),
      xmpCreators: creators === undefined ? [] : [creators].flat().map(String),
      pdfTitle: text(entry['PDF:Title']),
      xmpTitle: text(entry['XMP-dc:Title']),
      encryption: text(entry['PDF:Encryption']),
      linearized: entry['PDF:Linearized'] === 'Yes',
      // exiftool warns that revision 6 decrypts slowly; that is no fault of the file.
      warning:
        text(entry['ExifTool:Warning'])?.replace(/^\[minor\] Decryption is very slow.*$/, '') || undefined,
    });
  }
  return readings;
}

/**
 * The reading exiftool's tags imply under the server's documented order: `PDF:Author` (split at `;`) when it
 * names someone (not empty, not the placeholder `Unknown` the tests write), else `XMP-dc:Creator`; the
 * title from `PDF:Title` unless it is blank, else `XMP-dc:Title`.
 */
export function impliedReading(reading: ExiftoolPdfReading) {
  const info = (reading.pdfAuthor ?? '').split(';').map((name) => name.trim());
  const real = info.filter((name) => name !== '' && name.toLowerCase() !== 'unknown');
  const fromInfo = real.length > 0;
  return {
    authors: fromInfo ? real : reading.xmpCreators,
    source: fromInfo ? 'pdf:Author' : reading.xmpCreators.length > 0 ? 'xmp:dc:creator' : undefined,
    title: reading.pdfTitle?.trim() ? reading.pdfTitle : reading.xmpTitle,
  };
}

/** A file `qpdf` encrypts with a real user password ("geheim"): no reader opens it without that. */
export async function writePasswordPdf(dir: string, from: string): Promise<string> {
  const path = join(dir, 'user-password.pdf');
  await run('qpdf', ['--encrypt', 'geheim', 'owner', '256', '--', from, path]);
  return path;
}
