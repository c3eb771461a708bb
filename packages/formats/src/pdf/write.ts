import type { AuthorFields } from '../author-fields.js';
import { concat, latin1Bytes, utf8 } from '../bytes.js';
import { EmbedInputError, FormatError } from '../format-error.js';
import { PdfStructureError, readObject, readPdfDocument, trailerEntry } from './write-document.js';
import { asDict, asNumber, asRef, type PdfDict, PdfSyntaxError } from './write-syntax.js';

/**
 * Write the author and title into a PDF as an incremental update (ISO 32000-1, 7.5.6): the original bytes
 * stay as they are, and appended to them are the document information dictionary anew (`/Author` — several
 * authors joined with `; `, which the server splits on — and `/Title`, the old dictionary's other entries
 * copied), an XMP metadata stream (`dc:creator`, `dc:title`), the catalog again with `/Metadata` pointing
 * at it, and a cross-reference section of the same kind as the file's newest (a table, or a
 * cross-reference stream) with `/Prev`, `/Root`, `/Info` and the `/ID` of the file.
 *
 * @throws {FormatError} `encrypted` for an encrypted file; `DAMAGED_FILE` when its cross-reference
 *   data cannot be followed; `INVALID_AUTHOR` for a name with `;` (it would read as two).
 */
export async function embedPdf(
  bytes: Uint8Array,
  fields: AuthorFields,
  packet: string,
): Promise<Uint8Array<ArrayBuffer>> {
  for (const name of fields.authors) {
    if (name.includes(';')) {
      throw new EmbedInputError(
        'INVALID_AUTHOR',
        `The author \`${name}\` contains \`;\`, which a PDF's /Author uses between authors: pass the names as a list`,
      );
    }
  }
  try {
    return await writeUpdate(bytes, fields, packet);
  } catch (error) {
    if (error instanceof PdfStructureError || error instanceof PdfSyntaxError) {
      throw new FormatError(
        'damaged',
        'pdf',
        `This PDF is damaged: ${error.message}. Repair it first (e.g. \`qpdf damaged.pdf repaired.pdf\`) and try again`,
      );
    }
    throw error;
  }
}

async function writeUpdate(
  bytes: Uint8Array,
  fields: AuthorFields,
  packet: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const document = await readPdfDocument(bytes);
  if (document.encrypted) {
    throw new FormatError(
      'encrypted',
      'pdf',
      'This PDF is encrypted: its metadata cannot be changed without its password. Decrypt it first (e.g. `qpdf --decrypt --password=… in.pdf out.pdf`)',
    );
  }
  const root = asRef(trailerEntry(document, 'Root')?.value);
  const size = asNumber(trailerEntry(document, 'Size')?.value);
  if (root === undefined || size === undefined)
    throw new PdfStructureError('its trailer lacks `/Root` or `/Size`');
  const catalog = asDict(await readObject(document, root.num));
  if (catalog === undefined)
    throw new PdfStructureError(`its catalog (object ${root.num}) is not a dictionary`);
  const infoEntry = trailerEntry(document, 'Info');
  const infoRef = asRef(infoEntry?.value);
  const oldInfo =
    infoRef === undefined ? asDict(infoEntry?.value) : asDict(await readObject(document, infoRef.num));

  // The old information dictionary's own object is defined anew (as exiftool does): readers that walk the
  // older trailers then find one dictionary, not two (exiftool warns "Ignored duplicate Info dictionary").
  const infoNum = infoRef?.num ?? size;
  const infoGen = infoRef?.gen ?? 0;
  const metadataNum = infoRef === undefined ? size + 1 : size;
  const xmp = utf8(packet);
  const info = dictionary(oldInfo, fields.title === undefined ? ['Author'] : ['Author', 'Title'], [
    ['Author', pdfText(fields.authors.join('; '))],
    ...(fields.title === undefined ? [] : [['Title', pdfText(fields.title)] as [string, string]]),
  ]);
  const newCatalog = dictionary(catalog, ['Metadata'], [['Metadata', `${metadataNum} 0 R`]]);
  const objects: Array<{ num: number; gen: number; body: Uint8Array }> = [
    {
      num: infoNum,
      gen: infoGen,
      body: concat([utf8(`${infoNum} ${infoGen} obj\n`), info, utf8('\nendobj\n')]),
    },
    {
      num: metadataNum,
      gen: 0,
      body: concat([
        utf8(`${metadataNum} 0 obj\n<< /Type /Metadata /Subtype /XML /Length ${xmp.length} >>\nstream\n`),
        xmp,
        utf8('\nendstream\nendobj\n'),
      ]),
    },
    {
      num: root.num,
      gen: root.gen,
      body: concat([utf8(`${root.num} ${root.gen} obj\n`), newCatalog, utf8('\nendobj\n')]),
    },
  ];

  const last = bytes[bytes.length - 1];
  const parts: Uint8Array[] = [bytes, ...(last === 10 || last === 13 ? [] : [utf8('\n')])];
  let offset = parts.reduce((sum, part) => sum + part.length, 0);
  const offsets = new Map<number, { offset: number; gen: number }>();
  for (const object of objects) {
    offsets.set(object.num, { offset, gen: object.gen });
    parts.push(object.body);
    offset += object.body.length;
  }
  const trailerEntries: Array<[string, string]> = [
    ['Root', `${root.num} ${root.gen} R`],
    ['Info', `${infoNum} ${infoGen} R`],
    ['Prev', String(document.startxref)],
  ];
  const id = trailerEntry(document, 'ID')?.raw;
  if (id !== undefined) trailerEntries.push(['ID', latin1Text(id)]);
  if (document.usesXrefStream) {
    parts.push(xrefStream(offsets, metadataNum + 1, offset, trailerEntries));
  } else {
    parts.push(xrefTable(offsets, metadataNum + 1, offset, trailerEntries));
  }
  return concat(parts);
}

/** `<< … >>` with `dict`'s entries copied as they were, except `replaced`, then `added`. */
function dictionary(
  dict: PdfDict | undefined,
  replaced: string[],
  added: Array<[string, string]>,
): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [utf8('<<')];
  for (const [key, { raw }] of dict?.entries ?? []) {
    if (replaced.includes(key)) continue;
    parts.push(utf8(` ${pdfName(key)} `), raw);
  }
  for (const [key, value] of added) parts.push(utf8(` ${pdfName(key)} ${value}`));
  parts.push(utf8(' >>'));
  return concat(parts);
}

/** A name as PDF writes it: `/` and the bytes, delimiters and non-printable ones as `#xx`. */
function pdfName(name: string): string {
  return `/${name.replace(/[^!-~]|[#()<>[\]{}/%]/g, (char) => `#${char.charCodeAt(0).toString(16).padStart(2, '0')}`)}`;
}

/**
 * A PDF text string (ISO 32000-1, 7.9.2.2): printable ASCII as a literal string (`\`, `(`, `)` escaped);
 * anything else as UTF-16BE with a byte order mark, in hex.
 */
export function pdfText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return `(${text.replace(/[\\()]/g, (char) => `\\${char}`)})`;
  let hex = 'FEFF';
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase();
  return `<${hex}>`;
}

function latin1Text(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

/** A classic cross-reference section (7.5.4) for the new objects, and its trailer. */
function xrefTable(
  offsets: Map<number, { offset: number; gen: number }>,
  size: number,
  at: number,
  trailerEntries: Array<[string, string]>,
): Uint8Array<ArrayBuffer> {
  let text = 'xref\n';
  for (const run of runs([...offsets.keys()])) {
    text += `${run[0]} ${run.length}\n`;
    for (const num of run) {
      const { offset, gen } = offsets.get(num) as { offset: number; gen: number };
      text += `${String(offset).padStart(10, '0')} ${String(gen).padStart(5, '0')} n \n`;
    }
  }
  text += `trailer\n<< /Size ${size}${trailerEntries.map(([key, value]) => ` /${key} ${value}`).join('')} >>\nstartxref\n${at}\n%%EOF\n`;
  return latin1Bytes(text);
}

/** A cross-reference stream (7.5.8) for the new objects and itself, uncompressed, as object `size`. */
function xrefStream(
  offsets: Map<number, { offset: number; gen: number }>,
  size: number,
  at: number,
  trailerEntries: Array<[string, string]>,
): Uint8Array<ArrayBuffer> {
  const all = new Map(offsets).set(size, { offset: at, gen: 0 });
  const numbers = [...all.keys()].sort((a, b) => a - b);
  const data = new Uint8Array(numbers.length * 7);
  numbers.forEach((num, row) => {
    const { offset, gen } = all.get(num) as { offset: number; gen: number };
    const view = new DataView(data.buffer, row * 7, 7);
    view.setUint8(0, 1);
    view.setUint32(1, offset);
    view.setUint16(5, gen);
  });
  const index = runs(numbers).flatMap((run) => [run[0], run.length]);
  const dict =
    `<< /Type /XRef /Size ${size + 1} /W [1 4 2] /Index [${index.join(' ')}] /Length ${data.length}` +
    `${trailerEntries.map(([key, value]) => ` /${key} ${value}`).join('')} >>`;
  return concat([
    latin1Bytes(`${size} 0 obj\n${dict}\nstream\n`),
    data,
    latin1Bytes(`\nendstream\nendobj\nstartxref\n${at}\n%%EOF\n`),
  ]);
}

/** The numbers, sorted, in runs of consecutive ones. */
function runs(numbers: number[]): number[][] {
  const sorted = [...numbers].sort((a, b) => a - b);
  const result: number[][] = [];
  for (const num of sorted) {
    const run = result.at(-1);
    if (run !== undefined && run.at(-1) === num - 1) run.push(num);
    else result.push([num]);
  }
  return result;
}
