// embedAuthor on PDFs pdf-lib and qpdf wrote (a cross-reference stream with object streams, a classic
// table, a linearized file, a hybrid-free qpdf rewrite) and on the server's fixtures written by other tools:
// each output is checked by `qpdf --check` and read back by exiftool (PDF:Author, PDF:Title, XMP-dc).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbedError, embedAuthor } from '../src/index.js';
import { AUTHOR_CASES, checkWithQpdf, qpdf, readWithExiftool, writePdfs } from './support/inputs.js';

const SERVER_FIXTURES = fileURLToPath(new URL('../../../server/fixtures/files/', import.meta.url));

let dir: string;
const inputs = new Map<string, Uint8Array>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'siegel-client-pdf-'));
  const { objectStreams, classic } = await writePdfs();
  inputs.set('pdf-lib-object-streams', objectStreams);
  inputs.set('pdf-lib-classic', classic);
  const classicPath = join(dir, 'classic.pdf');
  await writeFile(classicPath, classic);
  for (const [name, args] of [
    ['qpdf-linearized', ['--linearize']],
    ['qpdf-object-streams', ['--object-streams=generate']],
  ] as const) {
    await qpdf([...args, classicPath, join(dir, `${name}.pdf`)]);
    inputs.set(name, await readFile(join(dir, `${name}.pdf`)));
  }
  // Written by other tools (see server/fixtures): an exiftool incremental update, an XMP-only file.
  for (const name of ['pdf-exiftool-update.pdf', 'pdf-xmp-only.pdf', 'pdf-objstm-author.pdf']) {
    inputs.set(name, await readFile(join(SERVER_FIXTURES, name)));
  }
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('embedAuthor on PDF', () => {
  it('appends an update that qpdf checks clean and exiftool reads, for every author case', async () => {
    const written = new Map<string, { authors: string[]; title: string }>();
    for (const [name, bytes] of inputs) {
      for (const { id, author, authors, title } of AUTHOR_CASES) {
        const output = await embedAuthor(bytes, { author, title });
        // An incremental update: the original bytes stay, byte for byte, at the start.
        expect(Buffer.from(output.subarray(0, bytes.length)).equals(Buffer.from(bytes)), name).toBe(true);
        const path = join(dir, `${name}-${id}.out.pdf`);
        await writeFile(path, output);
        written.set(path, { authors, title });
        const check = await checkWithQpdf(path);
        expect(check.code, `${path}\n${check.output}`).toBe(0);
      }
    }
    const readings = await readWithExiftool([...written.keys()]);
    for (const [path, want] of written) {
      expect(readings.get(path), path).toEqual({
        creators: want.authors,
        title: want.title,
        pdfAuthor: want.authors.join('; '),
        pdfTitle: want.title,
        validate: 'OK',
        warning: undefined,
      });
    }
  });

  it('writes a cross-reference stream after one, a table after a table, and keeps the other Info entries', async () => {
    const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');
    const stream = text(
      await embedAuthor(inputs.get('pdf-lib-object-streams') as Uint8Array, { author: 'Ana Lima' }),
    );
    const table = text(
      await embedAuthor(inputs.get('pdf-lib-classic') as Uint8Array, { author: 'Ana Lima' }),
    );
    const tail = (pdf: string) => pdf.slice(pdf.lastIndexOf('%%EOF', pdf.length - 7));
    expect(tail(stream)).toMatch(/\/Type \/XRef/);
    expect(tail(stream)).not.toMatch(/\bxref\n/);
    expect(tail(table)).toMatch(
      /\bxref\n[\s\S]*trailer\n<< \/Size \d+ \/Root \d+ 0 R \/Info \d+ 0 R \/Prev \d+/,
    );
    // pdf-lib writes its Info strings as UTF-16BE hex: copied as they were.
    const utf16 = (value: string) =>
      `<FEFF${[...value].map((char) => char.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()).join('')}>`;
    for (const pdf of [stream, table]) {
      const info = /obj\n(<<[^\n]*\/Author \(Ana Lima\)[^\n]*>>)/.exec(tail(pdf))?.[1];
      expect(info).toContain(`/Producer ${utf16('pdf-lib')}`);
      expect(info).toContain(`/Creator ${utf16('the embedAuthor tests')}`);
    }
  });

  it('keeps the old title when none is given, and replaces an XMP-only author', async () => {
    const path = join(dir, 'xmp-only-no-title.pdf');
    const before = join(dir, 'xmp-only-before.pdf');
    await writeFile(before, inputs.get('pdf-xmp-only.pdf') as Uint8Array);
    await writeFile(
      path,
      await embedAuthor(inputs.get('pdf-xmp-only.pdf') as Uint8Array, { author: 'Ana Lima' }),
    );
    const readings = await readWithExiftool([before, path]);
    expect(readings.get(path)?.creators).toEqual(['Ana Lima']);
    expect(readings.get(path)?.pdfAuthor).toBe('Ana Lima');
    expect(readings.get(before)?.creators).not.toEqual(['Ana Lima']);
  });

  it('takes /Root and /Info from an older trailer when the newest update leaves them out', async () => {
    const classic = Buffer.from(inputs.get('pdf-lib-classic') as Uint8Array);
    const text = classic.toString('latin1');
    const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
    const size = Number(/\/Size (\d+)/.exec(text.slice(startxref))?.[1]);
    // An update adding one object, whose trailer names only /Size and /Prev.
    const object = `${size} 0 obj\n(extra)\nendobj\n`;
    const xref = `xref\n${size} 1\n${String(classic.length).padStart(10, '0')} 00000 n \ntrailer\n<< /Size ${size + 1} /Prev ${startxref} >>\n`;
    const updated = Buffer.concat([
      classic,
      Buffer.from(`${object}${xref}startxref\n${classic.length + object.length}\n%%EOF\n`, 'latin1'),
    ]);
    const before = join(dir, 'sparse-trailer.pdf');
    const path = join(dir, 'sparse-trailer.out.pdf');
    await writeFile(before, updated);
    // qpdf reads /Root from the newest trailer only, and refuses this file (the server walks back to it).
    const refused = await checkWithQpdf(before);
    expect(refused.code, refused.output).toBe(2);
    expect(refused.output).toMatch(/Root/);
    await writeFile(path, await embedAuthor(updated, { author: 'Ana Lima', title: 'Sparse' }));
    // The update's trailer names /Root again: qpdf now finds nothing wrong.
    const check = await checkWithQpdf(path);
    expect(check.code, check.output).toBe(0);
    const reading = (await readWithExiftool([path])).get(path);
    expect(reading).toMatchObject({
      creators: ['Ana Lima'],
      pdfAuthor: 'Ana Lima',
      pdfTitle: 'Sparse',
      title: 'Sparse',
    });
    // The old information dictionary's other entries are still there.
    expect(Buffer.from(await readFile(path)).toString('latin1')).toMatch(/\/Producer <FEFF/);
  });

  it('refuses an encrypted PDF with ENCRYPTED_PDF, a truncated one with DAMAGED_FILE, and `;` in a name', async () => {
    const plain = join(dir, 'plain.pdf');
    const encrypted = join(dir, 'encrypted.pdf');
    await writeFile(plain, inputs.get('pdf-lib-classic') as Uint8Array);
    await qpdf(['--encrypt', 'user', 'owner', '256', '--', plain, encrypted]);
    const cases: Array<[string, Uint8Array, string, string | RegExp, RegExp]> = [
      ['encrypted', await readFile(encrypted), 'Ana Lima', 'ENCRYPTED_PDF', /encrypted.*qpdf --decrypt/],
      [
        'truncated',
        await readFile(join(SERVER_FIXTURES, 'pdf-truncated.pdf')),
        'Ana Lima',
        'DAMAGED_FILE',
        /%%EOF/,
      ],
      [
        'cut before its cross-reference data',
        Buffer.concat([
          Buffer.from((inputs.get('pdf-lib-classic') as Uint8Array).subarray(0, 300)),
          Buffer.from('\nstartxref\n999999\n%%EOF\n'),
        ]),
        'Ana Lima',
        'DAMAGED_FILE',
        /past the end of the file/,
      ],
      ['semicolon', inputs.get('pdf-lib-classic') as Uint8Array, 'Lima; Ana', 'INVALID_AUTHOR', /`;`.*list/],
    ];
    for (const [what, bytes, author, code, message] of cases) {
      const error = await embedAuthor(bytes, { author }).catch((caught: unknown) => caught);
      expect(error, what).toBeInstanceOf(EmbedError);
      expect((error as EmbedError).code, what).toBe(code);
      expect((error as EmbedError).message, what).toMatch(message);
    }
  });
});
