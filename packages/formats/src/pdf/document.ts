import { latin1 } from '../bytes.js';
import { damaged } from '../format-error.js';
import { FORMAT_LIMITS, isPastLimit, pastLimit } from '../limits.js';
import { type FormatPrimitives, webPrimitives } from '../primitives.js';
import { openStandardSecurity } from './crypt.js';
import { type PdfOwner, type StreamData, StreamDecoder } from './stream.js';
import { isName, isRef, type PdfDict, type PdfValue, parsePdfObject } from './syntax.js';
import { readCrossReference, undoPredictor, type XrefEntry, type XrefSource } from './xref.js';

const {
  pdf_objects: MAX_OBJECTS,
  pdf_object_streams: MAX_OBJECT_STREAMS,
  pdf_stream_bytes: MAX_STREAM_BYTES,
  pdf_parse_factor: PARSE_FACTOR,
} = FORMAT_LIMITS;

/** An opened object stream: its decoded data and where each of its objects starts in it. */
interface ObjectStream {
  data: Uint8Array;
  entries: Map<number, number>;
}

/**
 * The objects of one PDF file, read lazily: the cross-reference data (tables, streams, hybrid, every
 * incremental update, newest first) says where each is, and a scan of the file for `N G obj` headers stands
 * in where it is damaged or silent. Encrypted files are decrypted with the empty user password.
 *
 * Bounded by `FORMAT_LIMITS` (`pdf_*`): objects are indexed by one pass over the file, object streams are
 * opened only when an object is wanted from them (each once), streams inflate (and decrypt) into one budget
 * for the whole file, and the parser walks at most a few times the bytes there are.
 */
export class PdfDocument implements XrefSource {
  readonly text: string;
  private entries = new Map<number, XrefEntry>();
  private scanned: Map<number, { offset: number; gen: number }> | undefined;
  /** The object streams found by the scan, in file order; the first `openedStreams` are opened. */
  private unopenedStreams: number[] | undefined;
  private readonly streams = new Map<number, ObjectStream | undefined>();
  /** Entries of the opened object streams, the first stream to name an object kept (for the scan's path). */
  private readonly streamEntries = new Map<number, { stream: number; at: number }>();
  private readonly objects = new Map<number, { value: PdfValue | undefined; owner: PdfOwner }>();
  private readonly keywords = new Map<string, KeywordIndex>();
  private readonly decoder: StreamDecoder;
  private openingStreams = false;
  private openedStreams = 0;
  private walked = 0;

  constructor(
    readonly bytes: Uint8Array,
    private readonly primitives: FormatPrimitives = webPrimitives,
  ) {
    this.decoder = new StreamDecoder(primitives);
    const tail = latin1(bytes, Math.max(0, bytes.length - 1024));
    if (!tail.includes('%%EOF')) throw damaged('pdf', 'This PDF is truncated: it has no `%%EOF` at its end');
    this.text = (primitives.latin1 ?? latin1)(bytes);
  }

  /**
   * Read the cross-reference data and the trailer, and open the security handler of an encrypted file.
   *
   * @throws {FormatError} without a trailer, or for encryption that cannot be opened.
   */
  open(): PdfDict {
    const xref = readCrossReference(this);
    this.entries = xref.entries;
    const { trailer } = xref;
    if (trailer === undefined) throw damaged('pdf', 'This PDF is damaged: no trailer found');
    if (trailer.has('Encrypt')) {
      const encrypt = this.resolve(trailer.get('Encrypt')).value;
      if (!(encrypt instanceof Map)) {
        throw damaged(
          'pdf',
          'This PDF is encrypted, but its encryption dictionary is missing: it cannot be read',
        );
      }
      const resolved: PdfDict = new Map();
      for (const [key, value] of encrypt) resolved.set(key, this.resolve(value).value ?? null);
      const ids = this.resolve(trailer.get('ID')).value;
      const id = Array.isArray(ids) ? this.resolve(ids[0]).value : undefined;
      this.decoder.decryptor = openStandardSecurity(
        resolved,
        id instanceof Uint8Array ? id : undefined,
        this.primitives,
      );
    }
    return trailer;
  }

  /**
   * {@link parsePdfObject} at `offset` of the file, counting the bytes walked over: past `pdf_parse_factor`
   * times the bytes there are (the file and what its streams inflated to), the file is refused.
   */
  parseAt(offset: number, bytes: Uint8Array = this.bytes): { value: PdfValue; end: number } {
    const parsed = parsePdfObject(bytes, offset);
    this.walked += parsed.end - offset;
    if (this.walked > PARSE_FACTOR * (this.bytes.length + this.decoder.inflated) + 1024 * 1024) {
      throw pastLimit(
        'pdf_parse_factor',
        `This PDF makes its reader walk over more than ${PARSE_FACTOR}× its own bytes (the same bytes read over and over); it is not read`,
      );
    }
    return parsed;
  }

  /** The next position of `keyword` at or after `from` (-1 if none), from one pass over the file. */
  nextKeyword(keyword: string, from: number): number {
    let index = this.keywords.get(keyword);
    if (index === undefined) {
      index = new KeywordIndex(this.text, keyword);
      this.keywords.set(keyword, index);
    }
    return index.next(from);
  }

  /** Follow references (a bounded number of hops); `owner` is the object the value was last read from. */
  resolve(value: PdfValue | undefined, owner?: PdfOwner): { value: PdfValue | undefined; owner: PdfOwner } {
    let current = { value, owner };
    for (let hops = 0; hops < 8 && isRef(current.value); hops++) current = this.getObject(current.value.num);
    return isRef(current.value) ? { value: undefined, owner: undefined } : current;
  }

  /** A string's bytes (resolved, decrypted when the file is encrypted), or `undefined` if it is none. */
  readString(value: PdfValue | undefined, owner: PdfOwner, maxBytes: number): Uint8Array | undefined {
    const resolved = this.resolve(value, owner);
    if (!(resolved.value instanceof Uint8Array)) return undefined;
    const bytes = resolved.value;
    const { decryptor } = this.decoder;
    if (decryptor === undefined || resolved.owner === undefined) return bytes.subarray(0, maxBytes);
    // An encrypted string far longer than any author or title is skipped rather than decrypted.
    if (bytes.length > maxBytes + 32) return undefined;
    const { num, gen } = resolved.owner;
    return decryptor.decryptString(bytes, num, gen)?.subarray(0, maxBytes);
  }

  /** The value of object `num` (its newest definition) and the object it was read from; parsed once. */
  getObject(num: number): { value: PdfValue | undefined; owner: PdfOwner } {
    const known = this.objects.get(num);
    if (known !== undefined) return known;
    // While a stream is being opened (its `/Length` resolved), only direct objects are looked up.
    if (this.openingStreams && this.locateDirect(num) === undefined)
      return { value: undefined, owner: undefined };
    // A reference cycle through this object resolves to nothing.
    this.objects.set(num, { value: undefined, owner: undefined });
    const read = this.readObject(num);
    this.objects.set(num, read);
    return read;
  }

  private readObject(num: number): { value: PdfValue | undefined; owner: PdfOwner } {
    const direct = this.locateDirect(num);
    if (direct !== undefined)
      return { value: this.parseAt(direct.offset).value, owner: { num, gen: direct.gen } };
    const entry = this.entries.get(num);
    let found: { stream: number; at: number } | undefined;
    if (entry !== undefined && 'stream' in entry) {
      const at = this.openObjectStream(entry.stream)?.entries.get(num);
      if (at !== undefined) found = { stream: entry.stream, at };
    }
    found ??= this.findInAnyObjectStream(num);
    const data = found === undefined ? undefined : this.streams.get(found.stream)?.data;
    if (found === undefined || data === undefined) return { value: undefined, owner: undefined };
    try {
      return { value: this.parseAt(found.at, data).value, owner: undefined };
    } catch (error) {
      // A damaged entry is skipped, as a damaged object stream is; a file past a limit is refused.
      if (isPastLimit(error)) throw error;
      return { value: undefined, owner: undefined };
    }
  }

  /**
   * Where direct object `num` starts (after its `N G obj` header): where the cross-reference data says, if
   * the header there is that object's; else its last definition in the file (for damaged tables, or objects
   * the tables do not list).
   */
  private locateDirect(num: number): { offset: number; gen: number } | undefined {
    const entry = this.entries.get(num);
    if (entry !== undefined && 'offset' in entry) {
      const header = /^\s*(\d+)\s+(\d+)\s+obj\b/.exec(this.text.slice(entry.offset, entry.offset + 64));
      if (header !== null && Number(header[1]) === num) {
        return { offset: entry.offset + header[0].length, gen: Number(header[2]) };
      }
    }
    if (entry !== undefined && 'stream' in entry) return undefined;
    return this.scan().get(num);
  }

  /** One pass over the file for `N G obj` headers: the last definition of each object number. */
  private scan(): Map<number, { offset: number; gen: number }> {
    if (this.scanned === undefined) {
      const scanned = new Map<number, { offset: number; gen: number }>();
      let count = 0;
      for (const match of this.text.matchAll(/(?<![0-9])(\d{1,10})\s+(\d{1,5})\s+obj\b/g)) {
        if (++count > MAX_OBJECTS) {
          throw pastLimit('pdf_objects', `This PDF has more than ${MAX_OBJECTS} objects; it is not read`);
        }
        scanned.set(Number(match[1]), {
          offset: (match.index ?? 0) + match[0].length,
          gen: Number(match[2]),
        });
      }
      this.scanned = scanned;
    }
    return this.scanned;
  }

  /**
   * Where object `num` is in some object stream, when the cross-reference data does not say: the streams
   * the scan found are opened one by one, in file order, until one holds it. A file with more than
   * `pdf_object_streams` of them is refused before any is opened.
   */
  private findInAnyObjectStream(num: number): { stream: number; at: number } | undefined {
    if (this.unopenedStreams === undefined) {
      const streams: number[] = [];
      for (const [streamNum, { offset }] of this.scan()) {
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
    while (!this.streamEntries.has(num) && this.openedStreams < this.unopenedStreams.length) {
      this.openObjectStream(this.unopenedStreams[this.openedStreams++] as number);
    }
    return this.streamEntries.get(num);
  }

  /** Object stream `streamNum`, decoded and its header (`num offset` pairs) indexed; entries stay unparsed. */
  private openObjectStream(streamNum: number): ObjectStream | undefined {
    if (this.streams.has(streamNum)) return this.streams.get(streamNum);
    this.streams.set(streamNum, undefined);
    if (this.streams.size > MAX_OBJECT_STREAMS) {
      throw pastLimit(
        'pdf_object_streams',
        `This PDF has more than ${MAX_OBJECT_STREAMS} object streams; it is not read`,
      );
    }
    const location = this.locateDirect(streamNum);
    if (location === undefined) return undefined;
    const { value: dict, end } = this.parseAt(location.offset);
    if (!(dict instanceof Map) || !isName(dict.get('Type'), 'ObjStm')) return undefined;
    const count = dict.get('N');
    const first = dict.get('First');
    if (typeof count !== 'number' || typeof first !== 'number' || count < 0 || first < 0) return undefined;
    this.openingStreams = true;
    let read: StreamData;
    try {
      read = this.readStream(dict, end, { num: streamNum, gen: location.gen });
    } finally {
      this.openingStreams = false;
    }
    if (!('data' in read)) return undefined;
    const { data } = read;
    const stream: ObjectStream = { data, entries: new Map() };
    this.streams.set(streamNum, stream);
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
      if (this.streamEntries.size >= MAX_OBJECTS) {
        throw pastLimit('pdf_objects', `This PDF has more than ${MAX_OBJECTS} objects; it is not read`);
      }
      const at = first + relative;
      if (at >= data.length) continue;
      if (!stream.entries.has(num)) stream.entries.set(num, at);
      if (!this.streamEntries.has(num)) this.streamEntries.set(num, { stream: streamNum, at });
    }
    return stream;
  }

  /** The data of the document's XMP metadata stream, object `num` (clear under `/EncryptMetadata false`). */
  readMetadataStream(num: number, maxBytes: number): StreamData {
    const location = this.locateDirect(num);
    if (location === undefined) return { error: 'unreadable' };
    const { value, end } = this.parseAt(location.offset);
    if (!(value instanceof Map)) return { error: 'unreadable' };
    return this.readStream(value, end, { num, gen: location.gen }, maxBytes, true);
  }

  /** A cross-reference stream's data: never encrypted; its PNG predictor undone. */
  readXrefStreamData(dict: PdfDict, dictEnd: number): Uint8Array | undefined {
    const read = this.readStream(dict, dictEnd, undefined);
    if (!('data' in read)) return undefined;
    const parms = this.resolve(dict.get('DecodeParms')).value;
    return undoPredictor(read.data, Array.isArray(parms) ? parms[0] : parms);
  }

  /**
   * A stream's decoded bytes, given its dictionary and where the dictionary ended: its extent from `/Length`
   * (else the next `endstream`), then {@link StreamDecoder.decode} (decrypted, inflated within `maxBytes`).
   */
  readStream(
    dict: PdfDict,
    dictEnd: number,
    owner: PdfOwner,
    maxBytes = MAX_STREAM_BYTES,
    documentMetadata = false,
  ): StreamData {
    const keyword = /^\s*stream\r?\n/.exec(this.text.slice(dictEnd, dictEnd + 32));
    if (!keyword) return { error: 'unreadable' };
    const start = dictEnd + keyword[0].length;
    const declared = this.resolve(dict.get('Length')).value;
    let end = typeof declared === 'number' ? start + declared : -1;
    if (end < start || end > this.bytes.length || !/^\s*endstream/.test(this.text.slice(end, end + 32))) {
      end = this.nextKeyword('endstream', start);
      if (end === -1) return { error: 'unreadable' };
    }
    const raw = this.bytes.subarray(start, end);
    const resolve = (value: PdfValue | undefined) => this.resolve(value).value;
    return this.decoder.decode(raw, dict, { owner, maxBytes, documentMetadata }, resolve);
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
  return latin1(bytes, start, end - start);
}
