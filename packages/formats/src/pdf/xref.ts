import { FORMAT_LIMITS, pastLimit } from '../limits.js';
import { isName, type PdfDict, type PdfValue } from './syntax.js';

const { pdf_objects: MAX_OBJECTS, pdf_prev_chain: MAX_PREV_CHAIN } = FORMAT_LIMITS;

/** Where the cross-reference data says an object is: at a byte offset, or the n-th entry of an object stream. */
export type XrefEntry = { offset: number; gen: number } | { stream: number; index: number };

/** What the cross-reference reader needs of the document (the parser, counting what it walks). */
export interface XrefSource {
  readonly text: string;
  parseAt(offset: number): { value: PdfValue; end: number };
  nextKeyword(keyword: string, from: number): number;
  /** A cross-reference stream's decoded data (inflated, predictor undone); never encrypted. */
  readXrefStreamData(dict: PdfDict, dictEnd: number): Uint8Array | undefined;
}

/** The merged trailer and the in-use objects the cross-reference sections list, newest first. */
export interface CrossReference {
  /**
   * The newest trailer, with `/Root`, `/Info`, `/Encrypt` and `/ID` taken from the newest section that has
   * them when it lacks them; `undefined` when no section could be read.
   */
  trailer: PdfDict | undefined;
  /** Object number → its newest in-use entry (free entries are left out: an older one may then show). */
  entries: Map<number, XrefEntry>;
}

const INHERITED_KEYS = ['Root', 'Info', 'Encrypt', 'ID'] as const;

/**
 * Read the cross-reference data from `startxref` back through `/Prev` (at most `pdf_prev_chain` sections,
 * each once): classic tables, cross-reference streams (PDF 1.5) and hybrid files (a table whose trailer's
 * `/XRefStm` names a stream with the objects in object streams). A section that cannot be read ends the
 * chain (the caller falls back to scanning the file for objects); without a trailer naming `/Root` or
 * `/Info`, the last one in the file is taken.
 */
export function readCrossReference(source: XrefSource): CrossReference {
  const entries = new Map<number, XrefEntry>();
  let trailer: PdfDict | undefined;
  const add = (num: number, entry: XrefEntry) => {
    if (entries.size >= MAX_OBJECTS && !entries.has(num)) {
      throw pastLimit('pdf_objects', `This PDF has more than ${MAX_OBJECTS} objects; it is not read`);
    }
    if (!entries.has(num)) entries.set(num, entry);
  };
  const tail = source.text.slice(-2048);
  const startxref = [...tail.matchAll(/startxref\s+(\d{1,12})/g)].at(-1);
  let offset = startxref ? Number(startxref[1]) : undefined;
  const visited = new Set<number>();
  for (let hops = 0; offset !== undefined && hops < MAX_PREV_CHAIN && !visited.has(offset); hops++) {
    visited.add(offset);
    const section = readSection(source, offset, add);
    if (section === undefined) break;
    const hybrid = section.get('XRefStm');
    if (typeof hybrid === 'number' && !visited.has(hybrid)) {
      visited.add(hybrid);
      readXrefStream(source, hybrid, add);
    }
    if (trailer === undefined) trailer = new Map(section);
    else
      for (const key of INHERITED_KEYS)
        if (!trailer.has(key) && section.has(key)) trailer.set(key, section.get(key) as PdfValue);
    const prev = section.get('Prev');
    offset = typeof prev === 'number' ? prev : undefined;
  }
  if (trailer === undefined || !(trailer.has('Root') || trailer.has('Info'))) {
    trailer = findLastTrailer(source, add) ?? trailer;
  }
  return { trailer, entries };
}

/**
 * For damaged cross-reference data (a wrong `startxref`, shifted offsets): the dictionary after the last
 * `trailer` keyword, else the last cross-reference stream in the file (its entries read too).
 */
function findLastTrailer(source: XrefSource, add: Add): PdfDict | undefined {
  const { text } = source;
  const keyword = text.lastIndexOf('trailer');
  if (keyword !== -1) {
    const { value } = source.parseAt(keyword + 'trailer'.length);
    if (value instanceof Map) return value;
  }
  let at = text.length;
  for (let tries = 0; tries < 8; tries++) {
    at = text.lastIndexOf('/XRef', at - 1);
    if (at <= 0) return undefined;
    const before = text.slice(Math.max(0, at - 1024), at);
    const header = [...before.matchAll(/(?<![0-9])\d+\s+\d+\s+obj\b/g)].at(-1);
    if (header === undefined) continue;
    const dict = readXrefStream(source, at - before.length + (header.index ?? 0), add);
    if (dict !== undefined) return dict;
  }
  return undefined;
}

type Add = (num: number, entry: XrefEntry) => void;

function readSection(source: XrefSource, offset: number, add: Add): PdfDict | undefined {
  if (!Number.isSafeInteger(offset) || offset <= 0 || offset >= source.text.length) return undefined;
  if (source.text.startsWith('xref', offset)) return readTable(source, offset, add);
  return readXrefStream(source, offset, add);
}

/** A classic table (`xref`, subsections of 20-byte entries, `trailer <<…>>`). */
function readTable(source: XrefSource, offset: number, add: Add): PdfDict | undefined {
  const { text } = source;
  const header = /\s*(\d{1,10})\s+(\d{1,10})[ \t]*(?:\r\n|\r|\n)/y;
  const entry = /\s*(\d{1,10})\s+(\d{1,5})\s+([nf])/y;
  let position = offset + 4;
  sections: while (true) {
    header.lastIndex = position;
    const range = header.exec(text);
    if (range === null) break;
    position = header.lastIndex;
    const first = Number(range[1]);
    const count = Number(range[2]);
    for (let i = 0; i < count; i++) {
      entry.lastIndex = position;
      const row = entry.exec(text);
      if (row === null) break sections; // a damaged table: keep what was read, look for the trailer
      position = entry.lastIndex;
      if (row[3] === 'n') add(first + i, { offset: Number(row[1]), gen: Number(row[2]) });
    }
  }
  const keyword = source.nextKeyword('trailer', position);
  if (keyword === -1) return undefined;
  const { value } = source.parseAt(keyword + 'trailer'.length);
  return value instanceof Map ? value : undefined;
}

/** A cross-reference stream (`/Type /XRef`): its dictionary is the section's trailer. */
function readXrefStream(source: XrefSource, offset: number, add: Add): PdfDict | undefined {
  const head = /^\s*\d+\s+\d+\s+obj/.exec(source.text.slice(offset, offset + 64));
  if (!head) return undefined;
  const { value: dict, end } = source.parseAt(offset + head[0].length);
  if (!(dict instanceof Map) || !isName(dict.get('Type'), 'XRef')) return undefined;
  const widths = dict.get('W');
  if (!Array.isArray(widths) || widths.length < 3) return dict;
  const [w0, w1, w2] = widths
    .slice(0, 3)
    .map((width) => (typeof width === 'number' && width >= 0 && width <= 8 ? width : -1)) as [
    number,
    number,
    number,
  ];
  if (w0 < 0 || w1 < 0 || w2 < 0 || w0 + w1 + w2 === 0) return dict;
  const data = source.readXrefStreamData(dict, end);
  if (data === undefined) return dict;
  const size = dict.get('Size');
  const index = dict.get('Index') ?? [0, typeof size === 'number' ? size : 0];
  if (!Array.isArray(index)) return dict;
  const rowBytes = w0 + w1 + w2;
  let row = 0;
  const field = (at: number, width: number) => {
    let value = 0;
    for (let i = 0; i < width; i++) value = value * 256 + (data[at + i] as number);
    return value;
  };
  for (let pair = 0; pair + 1 < index.length; pair += 2) {
    const first = index[pair];
    const count = index[pair + 1];
    if (typeof first !== 'number' || typeof count !== 'number') break;
    for (let i = 0; i < count && (row + 1) * rowBytes <= data.length; i++, row++) {
      const at = row * rowBytes;
      const type = w0 === 0 ? 1 : field(at, w0);
      const second = field(at + w0, w1);
      const third = field(at + w0 + w1, w2);
      if (type === 1) add(first + i, { offset: second, gen: third });
      else if (type === 2) add(first + i, { stream: second, index: third });
    }
  }
  return dict;
}

/**
 * Undo a PNG predictor (`/Predictor` 10–15: each row starts with its filter type), as cross-reference
 * streams use with `/Columns`; `undefined` for other predictors or damaged rows.
 */
export function undoPredictor(data: Uint8Array, parms: PdfValue | undefined): Uint8Array | undefined {
  if (!(parms instanceof Map)) return data;
  const predictor = parms.get('Predictor') ?? 1;
  if (predictor === 1) return data;
  if (typeof predictor !== 'number' || predictor < 10 || predictor > 15) return undefined;
  const colors = numberOr(parms.get('Colors'), 1);
  const bits = numberOr(parms.get('BitsPerComponent'), 8);
  const columns = numberOr(parms.get('Columns'), 1);
  const pixel = Math.max(1, Math.ceil((colors * bits) / 8));
  const width = Math.ceil((colors * bits * columns) / 8);
  if (width <= 0 || width > 1 << 20) return undefined;
  const rows = Math.floor(data.length / (width + 1));
  const out = new Uint8Array(rows * width);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (width + 1)];
    const input = r * (width + 1) + 1;
    const at = r * width;
    for (let i = 0; i < width; i++) {
      const left = i >= pixel ? (out[at + i - pixel] as number) : 0;
      const up = r > 0 ? (out[at + i - width] as number) : 0;
      const upLeft = r > 0 && i >= pixel ? (out[at + i - width - pixel] as number) : 0;
      const raw = data[input + i] as number;
      let value: number;
      if (type === 0) value = raw;
      else if (type === 1) value = raw + left;
      else if (type === 2) value = raw + up;
      else if (type === 3) value = raw + ((left + up) >> 1);
      else if (type === 4) value = raw + paeth(left, up, upLeft);
      else return undefined;
      out[at + i] = value & 0xff;
    }
  }
  return out;
}

function paeth(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const toLeft = Math.abs(estimate - left);
  const toUp = Math.abs(estimate - up);
  const toUpLeft = Math.abs(estimate - upLeft);
  if (toLeft <= toUp && toLeft <= toUpLeft) return left;
  return toUp <= toUpLeft ? up : upLeft;
}

function numberOr(value: PdfValue | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 1 << 16
    ? value
    : fallback;
}
