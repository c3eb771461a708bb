// Every cross-reference form (ISO 32000-2 §7.5.4–7.5.8): incremental updates in tables and in
// cross-reference streams (with a PNG predictor), newer object streams over older definitions, hybrid files
// and damaged tables. Real writers' files (qpdf, exiftool, pdfkit, Chromium) are in test/server/pdf-writers.
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { undoPredictor } from '../../packages/formats/src/pdf/xref.js';
import { readPdfMetadata } from '../src/metadata/readers.js';
import { pdfWithObjects } from './hostile-files.js';

type Entry = { num: number; offset: number } | { num: number; stream: number; index: number };

/** A cross-reference stream object (`W [1 4 2]`, PNG Up predictor) listing `entries`. */
function xrefStream(num: number, entries: Entry[], trailer: string): Buffer {
  const sorted = [...entries].sort((a, b) => a.num - b.num);
  const rows = sorted.map((entry) => {
    const row = Buffer.alloc(7);
    if ('offset' in entry) {
      row[0] = 1;
      row.writeUInt32BE(entry.offset, 1);
    } else {
      row[0] = 2;
      row.writeUInt32BE(entry.stream, 1);
      row.writeUInt16BE(entry.index, 5);
    }
    return row;
  });
  // PNG "Up" predictor: each row starts with filter type 2 and holds its difference from the row above.
  const predicted = Buffer.concat(
    rows.map((row, r) => Buffer.from([2, ...row.map((byte, i) => (byte - (rows[r - 1]?.[i] ?? 0)) & 0xff)])),
  );
  const data = deflateSync(predicted);
  const index = sorted.map((entry) => `${entry.num} 1`).join(' ');
  return Buffer.concat([
    Buffer.from(
      `${num} 0 obj\n<< /Type /XRef /W [1 4 2] /Index [${index}] /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >> /Length ${data.length} ${trailer} >>\nstream\n`,
      'latin1',
    ),
    data,
    Buffer.from('\nendstream\nendobj\n', 'latin1'),
  ]);
}

/** An object stream holding `objects` (number → text), deflated. */
function objectStream(objects: Array<[number, string]>): string | Buffer {
  let header = '';
  let body = '';
  for (const [num, text] of objects) {
    header += `${num} ${body.length} `;
    body += `${text}\n`;
  }
  const data = deflateSync(Buffer.from(header + body, 'latin1'));
  return Buffer.concat([
    Buffer.from(
      `<< /Type /ObjStm /N ${objects.length} /First ${header.length} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
      'latin1',
    ),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/**
 * `base` with an incremental update appended: `objects` (number → body) and a cross-reference section, a
 * classic table or a cross-reference stream (object `xrefNum`, also listing `inStreams`), whose trailer
 * adds `/Prev`.
 */
function update(
  base: Buffer,
  objects: Array<[number, string | Buffer]>,
  trailer: string,
  form: { table: true } | { xrefNum: number; inStreams?: Entry[] },
): Buffer {
  const prev = Number([...base.toString('latin1').matchAll(/startxref\s+(\d+)/g)].at(-1)?.[1]);
  const parts: Buffer[] = [base];
  let length = base.length;
  const entries: Entry[] = [];
  for (const [num, body] of objects) {
    const part = Buffer.concat([
      Buffer.from(`${num} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    entries.push({ num, offset: length });
    parts.push(part);
    length += part.length;
  }
  if ('table' in form) {
    let table = 'xref\n';
    for (const entry of entries) {
      if ('offset' in entry) table += `${entry.num} 1\n${String(entry.offset).padStart(10, '0')} 00000 n \n`;
    }
    parts.push(Buffer.from(`${table}trailer\n<< ${trailer} /Prev ${prev} >>\nstartxref\n${length}\n%%EOF\n`));
  } else {
    const all = [...entries, ...(form.inStreams ?? []), { num: form.xrefNum, offset: length }];
    parts.push(xrefStream(form.xrefNum, all, `${trailer} /Prev ${prev}`));
    parts.push(Buffer.from(`startxref\n${length}\n%%EOF\n`));
  }
  return Buffer.concat(parts);
}

const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const PAGES = '<< /Type /Pages /Kids [] /Count 0 >>';

describe('PDF cross-reference forms: the newest definition of Info and XMP wins', () => {
  it('an update in a cross-reference stream moving Info into an object stream beats the older direct Info', () => {
    const base = pdfWithObjects(
      [CATALOG, PAGES, '<< /Author (Alte Autorin) >>'],
      '<< /Size 4 /Root 1 0 R /Info 3 0 R >>',
    );
    expect(readPdfMetadata(base).authors).toEqual(['Alte Autorin']);
    const updated = update(
      base,
      [[4, objectStream([[3, '<< /Author (Neue Autorin) /Title (Neu) >>']])]],
      '/Size 6 /Root 1 0 R /Info 3 0 R',
      { xrefNum: 5, inStreams: [{ num: 3, stream: 4, index: 0 }] },
    );
    expect(readPdfMetadata(updated)).toMatchObject({ authors: ['Neue Autorin'], title: 'Neu' });
  });

  it('a newer object stream beats an older object stream holding the same object', () => {
    const base = update(
      pdfWithObjects([CATALOG, PAGES], '<< /Size 3 /Root 1 0 R >>'),
      [[4, objectStream([[3, '<< /Author (Erste Fassung) >>']])]],
      '/Size 6 /Root 1 0 R /Info 3 0 R',
      { xrefNum: 5, inStreams: [{ num: 3, stream: 4, index: 0 }] },
    );
    expect(readPdfMetadata(base).authors).toEqual(['Erste Fassung']);
    const updated = update(
      base,
      [[6, objectStream([[3, '<< /Author (Zweite Fassung) >>']])]],
      '/Size 8 /Root 1 0 R /Info 3 0 R',
      { xrefNum: 7, inStreams: [{ num: 3, stream: 6, index: 0 }] },
    );
    expect(readPdfMetadata(updated).authors).toEqual(['Zweite Fassung']);
  });

  it('a hybrid file: the table’s trailer names (`/XRefStm`) a stream listing Info in an object stream', () => {
    const objstm = objectStream([[4, '<< /Author (Hanna Hybrid) /Title (Hybrid) >>']]);
    const head = pdfWithObjects([CATALOG, PAGES, objstm], '<< /Size 4 /Root 1 0 R >>');
    // The table lists 1–3 (3: the object stream); the cross-reference stream (object 5) lists 4 in stream 3.
    const body = head.subarray(0, head.indexOf('xref\n'));
    const offsets = [...body.toString('latin1').matchAll(/(\d) 0 obj/g)].map((m) => m.index ?? 0);
    const stream = xrefStream(5, [{ num: 4, stream: 3, index: 0 }], '/Size 6');
    const streamAt = body.length;
    const tableAt = streamAt + stream.length;
    const entry = (offset: number) => `${String(offset).padStart(10, '0')} 00000 n \n`;
    const table = `xref\n0 4\n0000000000 65535 f \n${offsets.map(entry).join('')}`;
    const file = Buffer.concat([
      body,
      stream,
      Buffer.from(
        `${table}trailer\n<< /Size 6 /Root 1 0 R /Info 4 0 R /XRefStm ${streamAt} >>\nstartxref\n${tableAt}\n%%EOF\n`,
      ),
    ]);
    expect(readPdfMetadata(file)).toMatchObject({ authors: ['Hanna Hybrid'], title: 'Hybrid' });
  });

  it('an update that only replaces the XMP stream (Info’s `/Author` empty) is read, not the older packet', () => {
    const packet = (name: string) =>
      `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>${name}</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>`;
    const stream = (name: string) =>
      `<< /Type /Metadata /Subtype /XML /Length ${packet(name).length} >>\nstream\n${packet(name)}\nendstream`;
    const base = pdfWithObjects(
      [
        '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
        PAGES,
        '<< /Author () /Title (LaTeX) >>',
        stream('Alter Name'),
      ],
      '<< /Size 5 /Root 1 0 R /Info 3 0 R >>',
    );
    expect(readPdfMetadata(base)).toMatchObject({ authors: ['Alter Name'], authorSource: 'xmp:dc:creator' });
    const updated = update(base, [[4, stream('Neuer Name')]], '/Size 5 /Root 1 0 R /Info 3 0 R', {
      table: true,
    });
    expect(readPdfMetadata(updated)).toMatchObject({
      authors: ['Neuer Name'],
      authorSource: 'xmp:dc:creator',
    });
  });

  it('a table whose offsets are all wrong falls back to the objects found in the file', () => {
    const file = pdfWithObjects(
      [CATALOG, PAGES, '<< /Author (Dora Defekt) >>'],
      '<< /Size 4 /Root 1 0 R /Info 3 0 R >>',
    );
    const text = file.toString('latin1').replace(/(\d{10}) 00000 n/g, '0000000003 00000 n');
    expect(readPdfMetadata(Buffer.from(text, 'latin1')).authors).toEqual(['Dora Defekt']);
  });

  it('a cross-reference-stream file whose `startxref` is wrong is read from its last `/Type /XRef` stream', () => {
    const head = Buffer.from('%PDF-1.7\n', 'latin1');
    const objects = [CATALOG, PAGES, objectStream([[4, '<< /Author (Stella Strom) >>']])];
    const parts: Buffer[] = [head];
    const entries: Entry[] = [];
    let length = head.length;
    objects.forEach((body, i) => {
      const part = Buffer.concat([
        Buffer.from(`${i + 1} 0 obj\n`),
        Buffer.from(body),
        Buffer.from('\nendobj\n'),
      ]);
      entries.push({ num: i + 1, offset: length });
      parts.push(part);
      length += part.length;
    });
    entries.push({ num: 4, stream: 3, index: 0 }, { num: 5, offset: length });
    parts.push(xrefStream(5, entries, '/Size 6 /Root 1 0 R /Info 4 0 R'));
    const good = Buffer.concat([...parts, Buffer.from(`startxref\n${length}\n%%EOF\n`)]);
    expect(readPdfMetadata(good).authors).toEqual(['Stella Strom']);
    const wrong = Buffer.concat([...parts, Buffer.from(`startxref\n${length + 7}\n%%EOF\n`)]);
    expect(readPdfMetadata(wrong).authors).toEqual(['Stella Strom']);
  });

  it('undoes the PNG predictors (Sub, Up, Average, Paeth) and refuses TIFF and unknown row filters', () => {
    const parms = new Map([
      ['Predictor', 12],
      ['Columns', 2],
    ]);
    // Rows [1 2], [3 5], [4 9], [10 10], [7 7], written with filters None, Sub, Up, Average and Paeth.
    const encoded = Uint8Array.of(0, 1, 2, 1, 3, 2, 2, 1, 4, 3, 8, 1, 4, 253, 0);
    expect([...(undoPredictor(encoded, parms) ?? [])]).toEqual([1, 2, 3, 5, 4, 9, 10, 10, 7, 7]);
    expect(undoPredictor(Uint8Array.of(5, 1, 2), parms)).toBeUndefined();
    expect(undoPredictor(encoded, new Map([['Predictor', 2]]))).toBeUndefined();
  });
});
