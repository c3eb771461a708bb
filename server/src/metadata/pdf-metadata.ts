import { inflateSync } from 'node:zlib';
import { invalidFormat } from '../api-error.js';
import type { FoundMetadata } from './file-metadata.js';
import { ANALYSIS_LIMITS, isPastLimit, pastLimit } from './limits.js';
import { type PdfDict, type PdfValue, parsePdfObject } from './pdf-syntax.js';
import { decodePdfText } from './pdf-text.js';
import { readXmp } from './xmp.js';

const {
  pdf_objects: MAX_OBJECTS,
  pdf_object_streams: MAX_OBJECT_STREAMS,
  pdf_stream_bytes: MAX_STREAM_BYTES,
  pdf_inflated_bytes: MAX_INFLATED_BYTES,
  pdf_prev_chain: MAX_PREV_CHAIN,
  pdf_parse_factor: PARSE_FACTOR,
  xmp_bytes: MAX_XMP_BYTES,
} = ANALYSIS_LIMITS;
/** Bytes of a metadata string decoded (authors, titles and descriptions are cut far shorter afterwards). */
const MAX_TEXT_BYTES = 64 * 1024;

/**
 * Read author, title and subject of a PDF: the document information dictionary's `/Author`, `/Title`,
 * `/Subject` (PDFDocEncoding or UTF-16), with the catalog's XMP metadata stream (`dc:creator`, `dc:title`)
 * filling what the dictionary lacks. Handles classic and cross-reference-stream files, incremental updates
 * (the newest trailer wins) and objects inside object streams.
 *
 * Bounded by `ANALYSIS_LIMITS` (`pdf_*`): objects are indexed by one pass over the file, object streams are
 * opened only when an object is wanted that is not a direct object (their headers indexed, an entry parsed
 * only when asked for, each once), streams inflate into one budget for the whole file, and the parser walks
 * at most a few times the bytes there are.
 *
 * @throws {ApiError} `INVALID_FORMAT` for truncated, encrypted, malformed or too complex files.
 */
export function readPdfMetadata(bytes: Uint8Array): FoundMetadata {
  const document = new PdfDocument(bytes);
  const trailer = document.readTrailer();
  if (trailer.has('Encrypt'))
    throw invalidFormat('Encrypted PDFs are not supported: their metadata cannot be read');
  const found: FoundMetadata = { authors: [] };
  const info = document.resolve(trailer.get('Info'));
  if (info instanceof Map) {
    const author = document.readText(info.get('Author'));
    if (author !== undefined) found.authors.push(...splitAuthors(author));
    found.title = document.readText(info.get('Title'));
    found.description = document.readText(info.get('Subject'));
  }
  if (found.authors.length > 0 && found.title !== undefined) return found;
  const xmp = document.readXmpPacket(trailer);
  if (xmp === undefined) return found;
  const fromXmp = readXmp(xmp);
  if (found.authors.length === 0) found.authors = fromXmp.authors;
  found.title ??= fromXmp.title;
  found.description ??= fromXmp.description;
  return found;
}

/** `/Author` is one string; writers join several people with `;` (a `,` may be inside one name: `Doe, Jane`). */
function splitAuthors(author: string): string[] {
  return author.split(';', 1000).map((name) => name.trim());
}

/** Where an object inside an object stream is: the stream's number and the entry's offset in its data. */
interface StreamEntry {
  stream: number;
  at: number;
}

class PdfDocument {
  readonly text: string;
  private offsets: Map<number, number> | undefined;
  /** The object streams (their object numbers), in file order; the first `openedStreams` are opened. */
  private unopenedStreams: number[] | undefined;
  private readonly entries = new Map<number, StreamEntry>();
  private readonly streamData = new Map<number, Uint8Array>();
  private readonly objects = new Map<number, PdfValue | undefined>();
  private readonly keywords = new Map<string, KeywordIndex>();
  private openingStreams = false;
  private openedStreams = 0;
  private inflated = 0;
  private walked = 0;

  constructor(readonly bytes: Uint8Array) {
    const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 1024))).toString('latin1');
    if (!tail.includes('%%EOF')) throw invalidFormat('This PDF is truncated: it has no `%%EOF` at its end');
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }

  /**
   * {@link parsePdfObject}, counting the bytes walked over: past `pdf_parse_factor` times the bytes there
   * are (the file and what its streams inflated to), the file is refused.
   */
  private parse(bytes: Uint8Array, offset: number): { value: PdfValue; end: number } {
    const parsed = parsePdfObject(bytes, offset);
    this.walked += parsed.end - offset;
    if (this.walked > PARSE_FACTOR * (this.bytes.length + this.inflated) + 1024 * 1024) {
      throw pastLimit(
        'pdf_parse_factor',
        `This PDF makes its reader walk over more than ${PARSE_FACTOR}× its own bytes (the same bytes read over and over); it is not read`,
      );
    }
    return parsed;
  }

  /** The next position of `keyword` at or after `from` (-1 if none), from one pass over the file. */
  private nextKeyword(keyword: string, from: number): number {
    let index = this.keywords.get(keyword);
    if (index === undefined) {
      index = new KeywordIndex(this.text, keyword);
      this.keywords.set(keyword, index);
    }
    return index.next(from);
  }

  /** The newest trailer (classic or cross-reference stream) that names `/Info` or `/Root`, else the newest. */
  readTrailer(): PdfDict {
    const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(this.text.slice(-1024));
    let offset = startxref ? Number(startxref[1]) : undefined;
    let newest: PdfDict | undefined;
    const visited = new Set<number>();
    for (let hops = 0; offset !== undefined && hops < MAX_PREV_CHAIN && !visited.has(offset); hops++) {
      visited.add(offset);
      const trailer = this.readTrailerAt(offset);
      if (trailer === undefined) break;
      newest ??= trailer;
      if (trailer.has('Info') || trailer.has('Root')) {
        if (!trailer.has('Encrypt') && newest.has('Encrypt')) trailer.set('Encrypt', true);
        return trailer;
      }
      const prev = trailer.get('Prev');
      offset = typeof prev === 'number' ? prev : undefined;
    }
    // Damaged cross-reference data: fall back to the last `trailer` keyword in the file.
    const keyword = this.text.lastIndexOf('trailer');
    if (keyword !== -1) {
      const { value } = this.parse(this.bytes, keyword + 'trailer'.length);
      if (value instanceof Map) return value;
    }
    if (newest !== undefined) return newest;
    throw invalidFormat('This PDF is damaged: no trailer found');
  }

  private readTrailerAt(offset: number): PdfDict | undefined {
    if (offset <= 0 || offset >= this.bytes.length) return undefined;
    if (this.text.startsWith('xref', offset)) {
      const keyword = this.nextKeyword('trailer', offset);
      if (keyword === -1) return undefined;
      const { value } = this.parse(this.bytes, keyword + 'trailer'.length);
      return value instanceof Map ? value : undefined;
    }
    const header = /^\s*\d+\s+\d+\s+obj/.exec(this.text.slice(offset, offset + 64));
    if (!header) return undefined;
    const { value } = this.parse(this.bytes, offset + header[0].length);
    return value instanceof Map ? value : undefined;
  }

  /** Follow references (a bounded number of hops). */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    let current = value;
    for (let hops = 0; hops < 8 && isRef(current); hops++) current = this.getObject(current.num);
    return isRef(current) ? undefined : current;
  }

  /** A text string (its first 64 KiB: metadata fields are cut far shorter), decoded. */
  readText(value: PdfValue | undefined): string | undefined {
    const resolved = this.resolve(value);
    return resolved instanceof Uint8Array ? decodePdfText(resolved.subarray(0, MAX_TEXT_BYTES)) : undefined;
  }

  /** The last definition of object `num` in the file, or its entry in an object stream; parsed once. */
  getObject(num: number): PdfValue | undefined {
    if (this.objects.has(num)) return this.objects.get(num);
    const offset = this.indexObjects().get(num);
    // While a stream is being opened (its `/Length` resolved), only direct objects are looked up.
    if (offset === undefined && this.openingStreams) return undefined;
    this.objects.set(num, undefined); // a reference cycle through this object resolves to nothing
    let value: PdfValue | undefined;
    if (offset !== undefined) {
      value = this.parse(this.bytes, offset).value;
    } else {
      const entry = this.findStreamEntry(num);
      const data = entry === undefined ? undefined : this.streamData.get(entry.stream);
      if (entry !== undefined && data !== undefined) {
        try {
          value = this.parse(data, entry.at).value;
        } catch (error) {
          // A damaged entry is skipped, as a damaged object stream is; a file past a limit is refused.
          if (isPastLimit(error)) throw error;
          value = undefined;
        }
      }
    }
    this.objects.set(num, value);
    return value;
  }

  private indexObjects(): Map<number, number> {
    if (this.offsets === undefined) {
      const offsets = new Map<number, number>();
      let count = 0;
      for (const match of this.text.matchAll(/(?<![0-9])(\d{1,10})\s+(\d{1,5})\s+obj\b/g)) {
        if (++count > MAX_OBJECTS) {
          throw pastLimit('pdf_objects', `This PDF has more than ${MAX_OBJECTS} objects; it is not read`);
        }
        offsets.set(Number(match[1]), (match.index ?? 0) + match[0].length);
      }
      this.offsets = offsets;
    }
    return this.offsets;
  }

  /**
   * Where object `num` is in an object stream: the streams are opened one by one, in file order, until one
   * holds it (each stream's header indexed once; an entry already seen in an earlier stream is kept). A file
   * with more than `pdf_object_streams` of them is refused before any is opened.
   */
  private findStreamEntry(num: number): StreamEntry | undefined {
    if (this.unopenedStreams === undefined) {
      const streams: number[] = [];
      for (const [streamNum, offset] of this.indexObjects()) {
        const head = this.text.slice(offset, offset + 256);
        if (!head.includes('/ObjStm') || !/^\s*<<[\s\S]{0,200}?\/Type\s*\/ObjStm/.test(head)) continue;
        if (streams.push(streamNum) > MAX_OBJECT_STREAMS) {
          throw pastLimit(
            'pdf_object_streams',
            `This PDF has more than ${MAX_OBJECT_STREAMS} object streams; it is not read`,
          );
        }
      }
      this.unopenedStreams = streams;
    }
    this.openingStreams = true;
    try {
      while (!this.entries.has(num) && this.openedStreams < this.unopenedStreams.length) {
        this.openObjectStream(this.unopenedStreams[this.openedStreams++] as number);
      }
    } finally {
      this.openingStreams = false;
    }
    return this.entries.get(num);
  }

  /** Inflate object stream `streamNum` and index its header (`num offset` pairs); entries stay unparsed. */
  private openObjectStream(streamNum: number): void {
    const offset = this.indexObjects().get(streamNum) as number;
    const { value: dict, end } = this.parse(this.bytes, offset);
    if (!(dict instanceof Map)) return;
    const count = dict.get('N');
    const first = dict.get('First');
    if (typeof count !== 'number' || typeof first !== 'number' || count < 0 || first < 0) return;
    const data = this.readStream(dict, end);
    if (data === undefined) return;
    this.streamData.set(streamNum, data);
    let position = 0;
    const limit = Math.min(first, data.length);
    const readNumber = (): number | undefined => {
      while (position < limit && isPdfWhitespace(data[position] as number)) position++;
      const start = position;
      while (position < limit && (data[position] as number) >= 48 && (data[position] as number) <= 57)
        position++;
      return position > start && position - start <= 10 ? Number(ascii(data, start, position)) : undefined;
    };
    for (let i = 0; i < count; i++) {
      const num = readNumber();
      const relative = readNumber();
      if (num === undefined || relative === undefined) break;
      if (this.entries.size >= MAX_OBJECTS) {
        throw pastLimit('pdf_objects', `This PDF has more than ${MAX_OBJECTS} objects; it is not read`);
      }
      const at = first + relative;
      if (!this.entries.has(num) && at < data.length) this.entries.set(num, { stream: streamNum, at });
    }
  }

  /**
   * A stream's decoded bytes (no filter or FlateDecode), given its dictionary and where the dictionary
   * ended; `undefined` when it cannot be read or inflates past `maxBytes`. What is inflated counts against
   * the file's `pdf_inflated_bytes`; past it the file is refused.
   */
  readStream(dict: PdfDict, dictEnd: number, maxBytes = MAX_STREAM_BYTES): Uint8Array | undefined {
    const keyword = /^\s*stream\r?\n/.exec(this.text.slice(dictEnd, dictEnd + 32));
    if (!keyword) return undefined;
    const start = dictEnd + keyword[0].length;
    const declared = this.resolve(dict.get('Length'));
    let end = typeof declared === 'number' ? start + declared : -1;
    if (end < start || end > this.bytes.length || !/^\s*endstream/.test(this.text.slice(end, end + 32))) {
      end = this.nextKeyword('endstream', start);
      if (end === -1) return undefined;
    }
    const raw = this.bytes.subarray(start, end);
    const filter = this.resolve(dict.get('Filter'));
    const filters = Array.isArray(filter) ? filter : filter === undefined ? [] : [filter];
    if (filters.length === 0) return raw.length > maxBytes ? undefined : raw;
    if (filters.length > 1 || !isName(filters[0], 'FlateDecode')) return undefined;
    const budget = MAX_INFLATED_BYTES - this.inflated;
    if (budget <= 0) {
      throw pastLimit(
        'pdf_inflated_bytes',
        `This PDF's streams inflate to more than ${MAX_INFLATED_BYTES} bytes together; it is not read`,
      );
    }
    const cap = Math.min(maxBytes, budget);
    try {
      const data = inflateSync(raw, { maxOutputLength: cap });
      this.inflated += data.length;
      return data;
    } catch {
      // Corrupt, or larger than the cap: what was inflated until then was work all the same.
      this.inflated += cap;
      return undefined;
    }
  }

  /** The catalog's `/Metadata` stream, else the last raw `<x:xmpmeta>` packet in the file. */
  readXmpPacket(trailer: PdfDict): Uint8Array | undefined {
    const root = this.resolve(trailer.get('Root'));
    const ref = root instanceof Map ? root.get('Metadata') : undefined;
    if (isRef(ref)) {
      const offset = this.indexObjects().get(ref.num);
      if (offset !== undefined) {
        const { value, end } = this.parse(this.bytes, offset);
        if (value instanceof Map) {
          const data = this.readStream(value, end, MAX_XMP_BYTES);
          if (data !== undefined) return data;
        }
      }
    }
    const start = this.text.lastIndexOf('<x:xmpmeta');
    const end = start === -1 ? -1 : this.text.indexOf('</x:xmpmeta>', start);
    return end === -1 ? undefined : this.bytes.subarray(start, end + '</x:xmpmeta>'.length);
  }
}

/** The positions of one keyword in a text, found in one pass when first asked for. */
class KeywordIndex {
  private readonly positions: number[] = [];

  constructor(text: string, keyword: string) {
    for (let at = text.indexOf(keyword); at !== -1; at = text.indexOf(keyword, at + keyword.length))
      this.positions.push(at);
  }

  /** The first position at or after `from`, or -1 (binary search). */
  next(from: number): number {
    let low = 0;
    let high = this.positions.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.positions[middle] as number) < from) low = middle + 1;
      else high = middle;
    }
    return this.positions[low] ?? -1;
  }
}

function isPdfWhitespace(byte: number): boolean {
  return byte === 0 || byte === 9 || byte === 10 || byte === 12 || byte === 13 || byte === 32;
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
}

function isRef(value: PdfValue | undefined): value is { type: 'ref'; num: number; gen: number } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    'type' in value &&
    value.type === 'ref'
  );
}

function isName(value: PdfValue | undefined, name: string): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    'type' in value &&
    value.type === 'name' &&
    value.name === name
  );
}
