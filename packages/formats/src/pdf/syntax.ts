import { hexBytes, latin1 } from '../bytes.js';
import { damaged } from '../format-error.js';
import { FORMAT_LIMITS, pastLimit } from '../limits.js';

/** A PDF name object, `/Author`. */
export interface PdfName {
  type: 'name';
  name: string;
}
/** An indirect reference, `12 0 R`. */
export interface PdfRef {
  type: 'ref';
  num: number;
  gen: number;
}
/** A PDF value as far as the metadata reader needs it. Strings are raw bytes (their encoding is decided later). */
export type PdfValue =
  | number
  | boolean
  | null
  | string
  | PdfName
  | PdfRef
  | Uint8Array
  | PdfValue[]
  | PdfDict;
/** A PDF dictionary. */
export type PdfDict = Map<string, PdfValue>;

/** Arrays and dictionaries nested deeper than this are refused (real metadata nests 2 or 3 levels). */
export const MAX_PDF_DEPTH = FORMAT_LIMITS.pdf_nesting;
const MAX_VALUES = FORMAT_LIMITS.pdf_object_values;

const WHITESPACE = new Set([0, 9, 10, 12, 13, 32]);
/** `\\n` → 10 … : the escapes of a literal string. */
const ESCAPES: Readonly<Record<number, number>> = {
  110: 10,
  114: 13,
  116: 9,
  98: 8,
  102: 12,
  40: 40,
  41: 41,
  92: 92,
};
const DELIMITERS = new Set([40, 41, 60, 62, 91, 93, 123, 125, 47, 37]);

/**
 * Parse one PDF object starting at `offset` (after any `N G obj` header). Nesting is limited to
 * {@link MAX_PDF_DEPTH} and the values in one object to `pdf_object_values`; strings and names to what fits
 * in the file. Time and memory are linear in the bytes walked over, so hostile input fails fast.
 *
 * @throws {FormatError} for malformed, too deeply nested or too large objects.
 */
export function parsePdfObject(bytes: Uint8Array, offset: number): { value: PdfValue; end: number } {
  const parser = new PdfParser(bytes, offset);
  const value = parser.parseValue(0);
  return { value, end: parser.offset };
}

class PdfParser {
  private values = 0;

  constructor(
    readonly bytes: Uint8Array,
    public offset: number,
  ) {}

  skipWhitespace(): void {
    const { bytes } = this;
    while (this.offset < bytes.length) {
      const byte = bytes[this.offset] as number;
      if (WHITESPACE.has(byte)) {
        this.offset++;
      } else if (byte === 37) {
        while (this.offset < bytes.length && bytes[this.offset] !== 10 && bytes[this.offset] !== 13)
          this.offset++;
      } else {
        return;
      }
    }
  }

  fail(why: string): never {
    throw damaged('pdf', `This PDF is damaged: ${why} at byte ${this.offset}`);
  }

  parseValue(depth: number): PdfValue {
    if (depth > MAX_PDF_DEPTH) {
      throw pastLimit(
        'pdf_nesting',
        `This PDF is damaged: objects are nested deeper than ${MAX_PDF_DEPTH} levels at byte ${this.offset}`,
      );
    }
    if (++this.values > MAX_VALUES) {
      throw pastLimit(
        'pdf_object_values',
        `This PDF has an object of more than ${MAX_VALUES} values (at byte ${this.offset}); it is not read`,
      );
    }
    this.skipWhitespace();
    const { bytes } = this;
    const byte = bytes[this.offset];
    if (byte === undefined) this.fail('unexpected end of file');
    if (byte === 40) return this.parseLiteralString();
    if (byte === 60 && bytes[this.offset + 1] === 60) return this.parseDict(depth);
    if (byte === 60) return this.parseHexString();
    if (byte === 91) return this.parseArray(depth);
    if (byte === 47) return { type: 'name', name: this.parseName() };
    if (byte === 43 || byte === 45 || byte === 46 || (byte >= 48 && byte <= 57))
      return this.parseNumberOrRef();
    const word = this.readRegular();
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    if (word === '') this.fail(`unexpected byte 0x${byte.toString(16)}`);
    return word; // a keyword such as `stream` or `endobj`
  }

  readRegular(): string {
    const start = this.offset;
    const { bytes } = this;
    while (this.offset < bytes.length) {
      const byte = bytes[this.offset] as number;
      if (WHITESPACE.has(byte) || DELIMITERS.has(byte)) break;
      this.offset++;
    }
    return latin1(bytes, start, this.offset - start);
  }

  parseNumberOrRef(): PdfValue {
    const word = this.readRegular();
    const number = Number(word);
    if (!Number.isFinite(number)) this.fail(`\`${word}\` is not a number`);
    if (!/^\d+$/.test(word)) return number;
    const save = this.offset;
    this.skipWhitespace();
    const gen = this.readRegular();
    if (/^\d+$/.test(gen)) {
      this.skipWhitespace();
      if (this.readRegular() === 'R') return { type: 'ref', num: number, gen: Number(gen) };
    }
    this.offset = save;
    return number;
  }

  parseName(): string {
    this.offset++; // '/'
    return this.readRegular().replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }

  parseArray(depth: number): PdfValue[] {
    this.offset++; // '['
    const items: PdfValue[] = [];
    while (true) {
      this.skipWhitespace();
      if (this.bytes[this.offset] === 93) {
        this.offset++;
        return items;
      }
      if (this.offset >= this.bytes.length) this.fail('unterminated array');
      items.push(this.parseValue(depth + 1));
    }
  }

  parseDict(depth: number): PdfDict {
    this.offset += 2; // '<<'
    const dict: PdfDict = new Map();
    while (true) {
      this.skipWhitespace();
      const byte = this.bytes[this.offset];
      if (byte === 62 && this.bytes[this.offset + 1] === 62) {
        this.offset += 2;
        return dict;
      }
      if (byte === undefined) this.fail('unterminated dictionary');
      if (byte !== 47) this.fail('dictionary key is not a name');
      const key = this.parseName();
      dict.set(key, this.parseValue(depth + 1));
    }
  }

  parseHexString(): Uint8Array {
    this.offset++; // '<'
    const end = this.bytes.indexOf(62, this.offset);
    if (end === -1) this.fail('unterminated hex string');
    const digits = latin1(this.bytes, this.offset, end - this.offset).replace(/[^0-9a-fA-F]/g, '');
    this.offset = end + 1;
    return hexBytes(digits.length % 2 === 1 ? `${digits}0` : digits);
  }

  parseLiteralString(): Uint8Array {
    const { bytes } = this;
    const start = ++this.offset; // after '('
    // First find the closing parenthesis, then decode into one buffer of at most that size.
    let nesting = 1;
    let end = start;
    for (; nesting > 0; end++) {
      const byte = bytes[end];
      if (byte === undefined) this.fail('unterminated string');
      if (byte === 92) end++;
      else if (byte === 40) nesting++;
      else if (byte === 41) nesting--;
    }
    const close = end - 1;
    const out = new Uint8Array(close - start);
    let length = 0;
    while (this.offset < close) {
      const byte = bytes[this.offset++] as number;
      if (byte !== 92) {
        out[length++] = byte;
        continue;
      }
      const next = bytes[this.offset++] as number;
      const escaped = ESCAPES[next];
      if (escaped !== undefined) {
        out[length++] = escaped;
      } else if (next >= 48 && next <= 55) {
        let code = next - 48;
        for (let i = 0; i < 2 && this.offset < close && isOctal(bytes[this.offset] as number); i++) {
          code = code * 8 + ((bytes[this.offset++] as number) - 48);
        }
        out[length++] = code & 0xff;
      } else if (next === 13) {
        if (this.offset < close && bytes[this.offset] === 10) this.offset++; // line continuation
      } else if (next !== 10) {
        out[length++] = next;
      }
    }
    this.offset = end;
    return length === out.length ? out : out.slice(0, length);
  }
}

function isOctal(byte: number): boolean {
  return byte >= 48 && byte <= 55;
}

/** Whether `value` is an indirect reference (`12 0 R`). */
export function isRef(value: PdfValue | undefined): value is PdfRef {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'ref';
}

/** The name of a name object (`/Author` → `Author`); `undefined` for any other value. */
export function nameOf(value: PdfValue | undefined): string | undefined {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'name'
    ? value.name
    : undefined;
}

/** Whether `value` is the name object `/name`. */
export function isName(value: PdfValue | undefined, name: string): boolean {
  return nameOf(value) === name;
}
