// Reading a PDF as an incremental update needs it: the cross-reference chain from the last `startxref`
// (classic tables, cross-reference streams and hybrid files), the newest trailer, and any object by number —
// also one inside a compressed object stream (inflated with the web's DecompressionStream).
import { concat, latin1 } from '../bytes.js';
import {
  asDict,
  asName,
  asNumber,
  asRef,
  type PdfDict,
  PdfSyntaxError,
  type PdfValue,
  parseValue,
  skipSpace,
} from './write-syntax.js';
import { undoPredictor } from './xref.js';

/** Where an object is: at a byte offset (1), inside an object stream (2), or free (0). */
export type XrefEntry =
  | { type: 0 }
  | { type: 1; offset: number; gen: number }
  | { type: 2; stream: number; index: number };

/** The newest cross-reference section and everything the chain of them says. */
export interface PdfDocument {
  bytes: Uint8Array;
  /** Offset of the newest section (`startxref`): the new section's `/Prev`. */
  startxref: number;
  /** Whether the newest section is a cross-reference stream (then the update writes one too). */
  usesXrefStream: boolean;
  /** The trailers, newest first (a cross-reference stream's dictionary is its trailer). */
  trailers: PdfDict[];
  /** Each object's newest entry. */
  entries: Map<number, XrefEntry>;
  /** Whether any trailer of the chain names `/Encrypt`. */
  encrypted: boolean;
}

const MAX_SECTIONS = 1000;
const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

/** Thrown when the file's structure cannot be followed; the caller words it for the user. */
export class PdfStructureError extends Error {}

/** Read the cross-reference chain of a PDF. @throws {PdfStructureError} @throws {PdfSyntaxError} */
export async function readPdfDocument(bytes: Uint8Array): Promise<PdfDocument> {
  const tail = latin1(bytes, Math.max(0, bytes.length - 2048));
  if (!tail.includes('%%EOF')) throw new PdfStructureError('it has no `%%EOF` at its end (truncated?)');
  const match = /startxref\s+(\d+)\s+%%EOF[\s\S]*$/.exec(tail.slice(tail.lastIndexOf('startxref')));
  if (match === null) throw new PdfStructureError('it has no `startxref` before its last `%%EOF`');
  const startxref = Number(match[1]);
  const entries = new Map<number, XrefEntry>();
  const pending = [startxref];
  const seen = new Set<number>();
  let newestIsStream: boolean | undefined;
  const trailers: PdfDict[] = [];
  let encrypted = false;
  while (pending.length > 0) {
    const offset = pending.shift() as number;
    if (seen.has(offset)) continue;
    if (seen.add(offset).size > MAX_SECTIONS)
      throw new PdfStructureError(`it has more than ${MAX_SECTIONS} cross-reference sections`);
    const section = await readSection(bytes, offset);
    newestIsStream ??= section.stream;
    trailers.push(section.trailer);
    for (const [num, entry] of section.entries) if (!entries.has(num)) entries.set(num, entry);
    if (section.trailer.entries.has('Encrypt')) encrypted = true;
    // A hybrid file's table is completed by its `/XRefStm` before `/Prev` is read (ISO 32000-1, 7.5.8.4).
    const hybrid = asNumber(section.trailer.entries.get('XRefStm')?.value);
    const prev = asNumber(section.trailer.entries.get('Prev')?.value);
    if (hybrid !== undefined) pending.unshift(hybrid);
    if (prev !== undefined) pending.push(prev);
  }
  if (newestIsStream === undefined) throw new PdfStructureError('it has no cross-reference section');
  return { bytes, startxref, usesXrefStream: newestIsStream, trailers, entries, encrypted };
}

/**
 * A trailer entry as readers take it: from the newest trailer that has it (an update's trailer should repeat
 * every entry, but some writers leave out what did not change).
 */
export function trailerEntry(
  document: PdfDocument,
  key: string,
): { value: PdfValue; raw: Uint8Array } | undefined {
  for (const trailer of document.trailers) {
    const entry = trailer.entries.get(key);
    if (entry !== undefined) return entry;
  }
  return undefined;
}

async function readSection(
  bytes: Uint8Array,
  offset: number,
): Promise<{ trailer: PdfDict; entries: Map<number, XrefEntry>; stream: boolean }> {
  if (offset >= bytes.length)
    throw new PdfStructureError(`its cross-reference offset ${offset} is past the end of the file`);
  const start = skipSpace(bytes, offset);
  if (latin1(bytes, start, 4) === 'xref') return { ...readTable(bytes, start + 4), stream: false };
  const { dict, dataStart } = readIndirectStream(bytes, start, `the cross-reference data at byte ${offset}`);
  if (asName(dict.entries.get('Type')?.value) !== 'XRef') {
    throw new PdfStructureError(
      `its cross-reference offset ${offset} points at neither \`xref\` nor a cross-reference stream`,
    );
  }
  const data = await streamData(bytes, dict, dataStart, asNumber(dict.entries.get('Length')?.value));
  return { trailer: dict, entries: readStreamEntries(dict, data), stream: true };
}

function readTable(bytes: Uint8Array, at: number): { trailer: PdfDict; entries: Map<number, XrefEntry> } {
  const entries = new Map<number, XrefEntry>();
  let position = at;
  while (true) {
    position = skipSpace(bytes, position);
    if (latin1(bytes, position, 7) === 'trailer') {
      const trailer = asDict(parseValue(bytes, position + 7).value);
      if (trailer === undefined) throw new PdfStructureError('its trailer is not a dictionary');
      return { trailer, entries };
    }
    const header = /^(\d+)[ \t]+(\d+)[ \t]*\r?\n?/.exec(latin1(bytes, position, 40));
    if (header === null)
      throw new PdfStructureError(`its cross-reference table is malformed at byte ${position}`);
    const first = Number(header[1]);
    const count = Number(header[2]);
    position += header[0].length;
    for (let i = 0; i < count; i++) {
      position = skipSpace(bytes, position);
      const entry = /^(\d{10}) (\d{5}) ([nf])/.exec(latin1(bytes, position, 18));
      if (entry === null)
        throw new PdfStructureError(`its cross-reference entry at byte ${position} is malformed`);
      if (!entries.has(first + i)) {
        entries.set(
          first + i,
          entry[3] === 'n' ? { type: 1, offset: Number(entry[1]), gen: Number(entry[2]) } : { type: 0 },
        );
      }
      position += 18;
    }
  }
}

function readStreamEntries(dict: PdfDict, data: Uint8Array): Map<number, XrefEntry> {
  const widths = dict.entries.get('W')?.value;
  const size = asNumber(dict.entries.get('Size')?.value);
  if (!Array.isArray(widths) || widths.length !== 3 || size === undefined) {
    throw new PdfStructureError('its cross-reference stream lacks `/W` or `/Size`');
  }
  const [w1, w2, w3] = widths.map((width) => asNumber(width) ?? -1) as [number, number, number];
  if (w1 < 0 || w2 < 0 || w3 < 0 || w1 + w2 + w3 === 0)
    throw new PdfStructureError('its cross-reference stream has a bad `/W`');
  const index = dict.entries.get('Index')?.value;
  const ranges = Array.isArray(index) ? index.map((value) => asNumber(value) ?? -1) : [0, size];
  const entries = new Map<number, XrefEntry>();
  const rowLength = w1 + w2 + w3;
  let row = 0;
  const field = (at: number, width: number) => {
    let value = 0;
    for (let i = 0; i < width; i++) value = value * 256 + (data[at + i] as number);
    return value;
  };
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    const [first, count] = [ranges[r] as number, ranges[r + 1] as number];
    if (first < 0 || count < 0) throw new PdfStructureError('its cross-reference stream has a bad `/Index`');
    for (let i = 0; i < count; i++, row++) {
      const at = row * rowLength;
      if (at + rowLength > data.length)
        throw new PdfStructureError('its cross-reference stream is shorter than its `/Index` says');
      const type = w1 === 0 ? 1 : field(at, w1);
      const second = field(at + w1, w2);
      const third = field(at + w1 + w2, w3);
      if (entries.has(first + i)) continue;
      if (type === 1) entries.set(first + i, { type: 1, offset: second, gen: third });
      else if (type === 2) entries.set(first + i, { type: 2, stream: second, index: third });
      else if (type === 0) entries.set(first + i, { type: 0 });
    }
  }
  return entries;
}

/** `num gen obj` at `at`, then a dictionary: the dictionary and where its stream data would start. */
function readIndirectStream(
  bytes: Uint8Array,
  at: number,
  what: string,
): { dict: PdfDict; dataStart: number | undefined } {
  const header = /^\d+\s+\d+\s+obj/.exec(latin1(bytes, at, 40));
  if (header === null) throw new PdfStructureError(`${what} is not an object`);
  const parsed = parseValue(bytes, at + header[0].length);
  const dict = asDict(parsed.value);
  if (dict === undefined) throw new PdfStructureError(`${what} is not a dictionary`);
  const keyword = /^\s*stream(\r\n|\n|\r)/.exec(latin1(bytes, parsed.end, 40));
  return { dict, dataStart: keyword === null ? undefined : parsed.end + keyword[0].length };
}

/** A stream's decoded data: no filter or FlateDecode, with a PNG predictor if one is given. */
async function streamData(
  bytes: Uint8Array,
  dict: PdfDict,
  dataStart: number | undefined,
  length: number | undefined,
): Promise<Uint8Array> {
  if (dataStart === undefined) throw new PdfStructureError('a stream lacks its `stream` keyword');
  let end = length === undefined ? -1 : dataStart + length;
  if (end < dataStart || end > bytes.length || !/^\s*endstream/.test(latin1(bytes, end, 24))) {
    end = latin1(bytes, dataStart).indexOf('endstream');
    if (end === -1) throw new PdfStructureError('a stream has no `endstream`');
    end += dataStart;
  }
  const raw = bytes.subarray(dataStart, end);
  const filter = dict.entries.get('Filter')?.value;
  const filters = Array.isArray(filter) ? filter.map(asName) : filter === undefined ? [] : [asName(filter)];
  if (filters.length === 0) return raw;
  if (filters.length > 1 || filters[0] !== 'FlateDecode') {
    throw new PdfStructureError(
      `a stream it needs is encoded with \`${filters.join(', ')}\`, which is not supported (only FlateDecode)`,
    );
  }
  const inflated = await inflate(raw);
  const decodeParms = dict.entries.get('DecodeParms')?.value;
  const params = asDict(Array.isArray(decodeParms) ? decodeParms[0] : decodeParms);
  const predictor = asNumber(params?.entries.get('Predictor')?.value) ?? 1;
  if (predictor === 1) return inflated;
  if (predictor < 10)
    throw new PdfStructureError(`a stream it needs uses predictor ${predictor}, which is not supported`);
  // The PDF core's PNG predictor (pdf/xref.ts), on the numbers of this reader's dictionary.
  const parms = new Map<string, number>();
  for (const key of ['Predictor', 'Columns', 'Colors', 'BitsPerComponent']) {
    const value = asNumber(params?.entries.get(key)?.value);
    if (value !== undefined) parms.set(key, value);
  }
  const data = undoPredictor(inflated, parms);
  if (data === undefined) throw new PdfStructureError('a stream it needs has damaged predictor rows');
  return data;
}

/**
 * Inflate zlib data with the web's `DecompressionStream` (Node ≥ 18, browsers, Deno, Workers). What was
 * inflated before an error is kept, as PDF readers keep it: many writers end a stream with stray bytes.
 */
async function inflate(data: Uint8Array): Promise<Uint8Array> {
  const reader = new Blob([data as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream('deflate'))
    .getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
      if (total > MAX_INFLATED_BYTES)
        throw new PdfStructureError(`a stream inflates to more than ${MAX_INFLATED_BYTES} bytes`);
    }
  } catch (error) {
    if (error instanceof PdfStructureError) throw error;
    if (total === 0) throw new PdfStructureError('a compressed stream it needs does not inflate');
  }
  return concat(chunks);
}

/**
 * Object `num` as the newest cross-reference entry says: at its offset, or inside its object stream.
 * `undefined` for a free or unknown object.
 *
 * @throws {PdfStructureError} when the entry points at something that is not that object.
 */
export async function readObject(document: PdfDocument, num: number): Promise<PdfValue | undefined> {
  const entry = document.entries.get(num);
  if (entry === undefined || entry.type === 0) return undefined;
  const { bytes } = document;
  if (entry.type === 1) {
    const start = skipSpace(bytes, entry.offset);
    const header = new RegExp(`^${num}\\s+\\d+\\s+obj`).exec(latin1(bytes, start, 40));
    if (header === null)
      throw new PdfStructureError(
        `its cross-reference entry for object ${num} points at byte ${entry.offset}, where that object is not`,
      );
    return parseValue(bytes, start + header[0].length).value;
  }
  const container = document.entries.get(entry.stream);
  if (container?.type !== 1)
    throw new PdfStructureError(`object stream ${entry.stream} (holding object ${num}) is missing`);
  const { dict, dataStart } = readIndirectStream(
    bytes,
    skipSpace(bytes, container.offset),
    `object stream ${entry.stream}`,
  );
  const lengthValue = dict.entries.get('Length')?.value;
  const lengthRef = asRef(lengthValue);
  const length =
    lengthRef === undefined ? asNumber(lengthValue) : asNumber(await readObject(document, lengthRef.num));
  const data = await streamData(bytes, dict, dataStart, length);
  const first = asNumber(dict.entries.get('First')?.value);
  const count = asNumber(dict.entries.get('N')?.value);
  if (first === undefined || count === undefined || entry.index >= count) {
    throw new PdfStructureError(`object stream ${entry.stream} does not hold object ${num}`);
  }
  const numbers = latin1(data, 0, first).trim().split(/\s+/).map(Number);
  if (numbers[2 * entry.index] !== num)
    throw new PdfStructureError(`object stream ${entry.stream} does not hold object ${num}`);
  const offset = numbers[2 * entry.index + 1];
  if (offset === undefined || Number.isNaN(offset))
    throw new PdfStructureError(`object stream ${entry.stream} is malformed`);
  return parseValue(data, first + offset).value;
}

export { PdfSyntaxError };
