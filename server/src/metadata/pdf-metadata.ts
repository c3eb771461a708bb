import { inflateSync } from 'node:zlib';
import { invalidFormat } from '../api-error.js';
import type { FoundMetadata } from './file-metadata.js';
import { type PdfDict, type PdfValue, parsePdfObject } from './pdf-syntax.js';
import { decodePdfText } from './pdf-text.js';
import { MAX_XMP_BYTES, readXmp } from './xmp.js';

const MAX_OBJECT_STREAM_BYTES = 16 * 1024 * 1024;
const MAX_PREV_CHAIN = 32;

/**
 * Read author, title and subject of a PDF: the document information dictionary's `/Author`, `/Title`,
 * `/Subject` (PDFDocEncoding or UTF-16), with the catalog's XMP metadata stream (`dc:creator`, `dc:title`)
 * filling what the dictionary lacks. Handles classic and cross-reference-stream files, incremental updates
 * (the newest trailer wins) and objects inside object streams.
 *
 * @throws {ApiError} `INVALID_FORMAT` for truncated, encrypted or malformed files.
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
  return author.split(';').map((name) => name.trim());
}

class PdfDocument {
  readonly text: string;
  private offsets: Map<number, number> | undefined;
  private objectStreams: Map<number, PdfValue> | undefined;

  constructor(readonly bytes: Uint8Array) {
    const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 1024))).toString('latin1');
    if (!tail.includes('%%EOF')) throw invalidFormat('This PDF is truncated: it has no `%%EOF` at its end');
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }

  /** The newest trailer (classic or cross-reference stream) that names `/Info` or `/Root`, else the newest. */
  readTrailer(): PdfDict {
    const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(this.text.slice(-1024));
    let offset = startxref ? Number(startxref[1]) : undefined;
    let newest: PdfDict | undefined;
    for (let hops = 0; offset !== undefined && hops < MAX_PREV_CHAIN; hops++) {
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
      const { value } = parsePdfObject(this.bytes, keyword + 'trailer'.length);
      if (value instanceof Map) return value;
    }
    if (newest !== undefined) return newest;
    throw invalidFormat('This PDF is damaged: no trailer found');
  }

  private readTrailerAt(offset: number): PdfDict | undefined {
    if (offset <= 0 || offset >= this.bytes.length) return undefined;
    if (this.text.startsWith('xref', offset)) {
      const keyword = this.text.indexOf('trailer', offset);
      if (keyword === -1) return undefined;
      const { value } = parsePdfObject(this.bytes, keyword + 'trailer'.length);
      return value instanceof Map ? value : undefined;
    }
    const header = /^\s*\d+\s+\d+\s+obj/.exec(this.text.slice(offset, offset + 64));
    if (!header) return undefined;
    const { value } = parsePdfObject(this.bytes, offset + header[0].length);
    return value instanceof Map ? value : undefined;
  }

  /** Follow references (a bounded number of hops). */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    let current = value;
    for (let hops = 0; hops < 8 && isRef(current); hops++) current = this.getObject(current.num);
    return isRef(current) ? undefined : current;
  }

  readText(value: PdfValue | undefined): string | undefined {
    const resolved = this.resolve(value);
    return resolved instanceof Uint8Array ? decodePdfText(resolved) : undefined;
  }

  /** The last definition of object `num` in the file, or its entry in an object stream. */
  getObject(num: number): PdfValue | undefined {
    const offset = this.indexObjects().get(num);
    if (offset !== undefined) return parsePdfObject(this.bytes, offset).value;
    return this.indexObjectStreams().get(num);
  }

  private indexObjects(): Map<number, number> {
    if (this.offsets === undefined) {
      this.offsets = new Map();
      for (const match of this.text.matchAll(/(?<![0-9])(\d{1,10})\s+(\d{1,5})\s+obj\b/g)) {
        this.offsets.set(Number(match[1]), (match.index ?? 0) + match[0].length);
      }
    }
    return this.offsets;
  }

  private indexObjectStreams(): Map<number, PdfValue> {
    if (this.objectStreams !== undefined) return this.objectStreams;
    this.objectStreams = new Map();
    for (const offset of this.indexObjects().values()) {
      if (!/^\s*<<[\s\S]{0,200}\/Type\s*\/ObjStm/.test(this.text.slice(offset, offset + 256))) continue;
      const { value: dict, end } = parsePdfObject(this.bytes, offset);
      if (!(dict instanceof Map)) continue;
      const data = this.readStream(dict, end);
      const count = dict.get('N');
      const first = dict.get('First');
      if (data === undefined || typeof count !== 'number' || typeof first !== 'number') continue;
      const header = Buffer.from(data.subarray(0, first)).toString('latin1').trim().split(/\s+/).map(Number);
      for (let i = 0; i + 1 < Math.min(header.length, count * 2); i += 2) {
        const num = header[i] as number;
        const at = first + (header[i + 1] as number);
        if (this.objectStreams.has(num) || at >= data.length) continue;
        try {
          this.objectStreams.set(num, parsePdfObject(data, at).value);
        } catch (error) {
          if ((error as Error).message.includes('nested deeper')) throw error;
        }
      }
    }
    return this.objectStreams;
  }

  /** A stream's decoded bytes (no filter or FlateDecode), given its dictionary and where the dictionary ended. */
  readStream(dict: PdfDict, dictEnd: number, maxBytes = MAX_OBJECT_STREAM_BYTES): Uint8Array | undefined {
    const keyword = /^\s*stream\r?\n/.exec(this.text.slice(dictEnd, dictEnd + 32));
    if (!keyword) return undefined;
    const start = dictEnd + keyword[0].length;
    const declared = this.resolve(dict.get('Length'));
    let end = typeof declared === 'number' ? start + declared : -1;
    if (end < start || end > this.bytes.length || !/^\s*endstream/.test(this.text.slice(end, end + 32))) {
      end = this.text.indexOf('endstream', start);
      if (end === -1) return undefined;
    }
    const raw = this.bytes.subarray(start, end);
    const filter = this.resolve(dict.get('Filter'));
    const filters = Array.isArray(filter) ? filter : filter === undefined ? [] : [filter];
    if (filters.length === 0) return raw.length > maxBytes ? undefined : raw;
    if (filters.length > 1 || !isName(filters[0], 'FlateDecode')) return undefined;
    try {
      return inflateSync(raw, { maxOutputLength: maxBytes });
    } catch {
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
        const { value, end } = parsePdfObject(this.bytes, offset);
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
