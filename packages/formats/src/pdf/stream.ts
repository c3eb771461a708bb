import { FORMAT_LIMITS, pastLimit } from '../limits.js';
import type { FormatPrimitives } from '../primitives.js';
import type { PdfDecryptor } from './crypt.js';
import { isName, nameOf, type PdfDict, type PdfValue } from './syntax.js';

const MAX_INFLATED_BYTES = FORMAT_LIMITS.pdf_inflated_bytes;

/**
 * The object a value was read from, whose number and generation key its decryption (ISO 32000-2 §7.6.2);
 * `undefined` for values that are never encrypted on their own (the trailer, entries of object streams).
 */
export type PdfOwner = { num: number; gen: number } | undefined;

/** A stream's decoded data, or why there is none: `too-large` past its cap, `unreadable` otherwise. */
export type StreamData = { data: Uint8Array } | { error: 'too-large' | 'unreadable' };

/**
 * Decodes the streams of one file: decryption first (by the document's stream filter, or the crypt filter a
 * stream names itself), then no filter or FlateDecode, all streams inflating into one budget
 * (`pdf_inflated_bytes`); past it the file is refused.
 */
export class StreamDecoder {
  /** Bytes inflated so far, from all streams of the file. */
  inflated = 0;
  /** The security handler of an encrypted file. */
  decryptor: PdfDecryptor | undefined;

  constructor(private readonly primitives: FormatPrimitives) {}

  /**
   * The data of a stream (`raw`, its bytes in the file) of object `owner`, within `maxBytes` (else
   * `too-large`). Cross-reference streams are never encrypted, and the document's XMP metadata stream (the
   * catalog's, or any of `/Type /Metadata`) is not under `/EncryptMetadata false`.
   */
  decode(
    raw: Uint8Array,
    dict: PdfDict,
    where: { owner: PdfOwner; maxBytes: number; documentMetadata: boolean },
    resolve: (value: PdfValue | undefined) => PdfValue | undefined,
  ): StreamData {
    const { owner, maxBytes } = where;
    const filter = resolve(dict.get('Filter'));
    let filters = Array.isArray(filter) ? filter : filter === undefined ? [] : [filter];
    let data: Uint8Array | undefined = raw;
    if (this.decryptor !== undefined && owner !== undefined && !isName(dict.get('Type'), 'XRef')) {
      let cryptFilter: string | undefined;
      if (isName(filters[0], 'Crypt')) {
        // The stream names its own crypt filter (`/DecodeParms << /Name … >>`, default `Identity`).
        const parms = resolve(dict.get('DecodeParms'));
        const first = Array.isArray(parms) ? resolve(parms[0]) : parms;
        cryptFilter = (first instanceof Map ? nameOf(first.get('Name')) : undefined) ?? 'Identity';
        filters = filters.slice(1);
      }
      const metadata = where.documentMetadata || isName(dict.get('Type'), 'Metadata');
      const plainMetadata = metadata && !this.decryptor.encryptMetadata;
      if (!plainMetadata) data = this.decryptor.decryptStream(raw, owner.num, owner.gen, cryptFilter);
      if (data === undefined) return { error: 'unreadable' };
    }
    if (filters.length === 0) return data.length > maxBytes ? { error: 'too-large' } : { data };
    if (filters.length > 1 || !isName(filters[0], 'FlateDecode')) return { error: 'unreadable' };
    return this.inflate(data, maxBytes);
  }

  private inflate(data: Uint8Array, maxBytes: number): StreamData {
    const budget = MAX_INFLATED_BYTES - this.inflated;
    if (budget <= 0) throw pastInflateBudget();
    const cap = Math.min(maxBytes, budget);
    let inflated: Uint8Array | 'too-large';
    try {
      inflated = this.primitives.inflate(data, cap);
    } catch {
      // Corrupt: what was inflated until then was work all the same.
      this.inflated += cap;
      return { error: 'unreadable' };
    }
    if (inflated === 'too-large') {
      this.inflated += cap;
      if (cap < maxBytes) throw pastInflateBudget();
      return { error: 'too-large' };
    }
    this.inflated += inflated.length;
    return { data: inflated };
  }
}

function pastInflateBudget() {
  return pastLimit(
    'pdf_inflated_bytes',
    `This PDF's streams inflate to more than ${MAX_INFLATED_BYTES} bytes together; it is not read`,
  );
}
