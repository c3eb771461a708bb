// PDF object syntax (ISO 32000-1, 7.2–7.3): just enough to read the trailer, the cross-reference data, the
// catalog and the document information dictionary, keeping the source bytes of every dictionary value so an
// update can copy them unchanged. Written here rather than taken from a PDF library: the package has no
// dependency (it loads as is in browsers, Deno and Workers), and an incremental update needs no more.

/** A parsed PDF value. Strings are kept as their source bytes only (they are copied, never read). */
export type PdfValue =
  | number
  | boolean
  | null
  | PdfName
  | PdfString
  | PdfRef
  | PdfDict
  | PdfKeyword
  | PdfValue[];

export interface PdfName {
  type: 'name';
  name: string;
}
export interface PdfString {
  type: 'string';
}
export interface PdfRef {
  type: 'ref';
  num: number;
  gen: number;
}
export interface PdfKeyword {
  type: 'keyword';
  word: string;
}
/** A dictionary: each value parsed, and its source bytes (`raw`) for copying. */
export interface PdfDict {
  type: 'dict';
  entries: Map<string, { value: PdfValue; raw: Uint8Array }>;
}

/** Thrown for bytes that are not PDF syntax; the caller words it for the user. */
export class PdfSyntaxError extends Error {}

const MAX_DEPTH = 64;

export function isWhitespace(byte: number | undefined): boolean {
  return byte === 0 || byte === 9 || byte === 10 || byte === 12 || byte === 13 || byte === 32;
}

function isDelimiter(byte: number | undefined): boolean {
  return byte !== undefined && '()<>[]{}/%'.includes(String.fromCharCode(byte));
}

/** The position of the next token at or after `at`: whitespace and comments skipped. */
export function skipSpace(bytes: Uint8Array, at: number): number {
  let position = at;
  while (position < bytes.length) {
    const byte = bytes[position];
    if (isWhitespace(byte)) position++;
    else if (byte === 0x25) {
      while (position < bytes.length && bytes[position] !== 10 && bytes[position] !== 13) position++;
    } else break;
  }
  return position;
}

/**
 * Parse the value at `at` (after whitespace): its value, where it starts and where it ends.
 *
 * @throws {PdfSyntaxError} for bytes that are not a PDF value.
 */
export function parseValue(
  bytes: Uint8Array,
  at: number,
  depth = 0,
): { value: PdfValue; start: number; end: number } {
  if (depth > MAX_DEPTH) throw new PdfSyntaxError(`values nested deeper than ${MAX_DEPTH} levels`);
  const start = skipSpace(bytes, at);
  const byte = bytes[start];
  if (byte === undefined) throw new PdfSyntaxError('the file ends inside an object');
  if (byte === 0x2f) {
    const end = regularEnd(bytes, start + 1);
    return { value: { type: 'name', name: decodeName(bytes.subarray(start + 1, end)) }, start, end };
  }
  if (byte === 0x3c && bytes[start + 1] === 0x3c) return parseDict(bytes, start, depth);
  if (byte === 0x3c) {
    const end = bytes.indexOf(0x3e, start);
    if (end === -1) throw new PdfSyntaxError('a hex string is not closed');
    return { value: { type: 'string' }, start, end: end + 1 };
  }
  if (byte === 0x28) return { value: { type: 'string' }, start, end: literalStringEnd(bytes, start) };
  if (byte === 0x5b) {
    const items: PdfValue[] = [];
    let position = start + 1;
    while (true) {
      position = skipSpace(bytes, position);
      if (bytes[position] === 0x5d) return { value: items, start, end: position + 1 };
      const item = parseValue(bytes, position, depth + 1);
      items.push(item.value);
      position = item.end;
    }
  }
  const end = regularEnd(bytes, start);
  if (end === start) throw new PdfSyntaxError(`unexpected byte 0x${byte.toString(16)} at ${start}`);
  const word = latin1Of(bytes, start, end);
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)$/.test(word)) {
    const number = Number(word);
    const reference = /^\d+$/.test(word) ? readReference(bytes, end, number) : undefined;
    return { value: reference?.value ?? number, start, end: reference?.end ?? end };
  }
  if (word === 'true' || word === 'false') return { value: word === 'true', start, end };
  if (word === 'null') return { value: null, start, end };
  return { value: { type: 'keyword', word }, start, end };
}

function parseDict(
  bytes: Uint8Array,
  start: number,
  depth: number,
): { value: PdfDict; start: number; end: number } {
  const entries: PdfDict['entries'] = new Map();
  let position = start + 2;
  while (true) {
    position = skipSpace(bytes, position);
    if (bytes[position] === 0x3e && bytes[position + 1] === 0x3e) {
      return { value: { type: 'dict', entries }, start, end: position + 2 };
    }
    const key = parseValue(bytes, position, depth + 1);
    if (
      typeof key.value !== 'object' ||
      key.value === null ||
      !('type' in key.value) ||
      key.value.type !== 'name'
    ) {
      throw new PdfSyntaxError(`a dictionary key at ${key.start} is not a name`);
    }
    const item = parseValue(bytes, key.end, depth + 1);
    entries.set(key.value.name, { value: item.value, raw: bytes.subarray(item.start, item.end) });
    position = item.end;
  }
}

/** `num gen R` after the integer `num` ending at `at`, if that is what follows. */
function readReference(
  bytes: Uint8Array,
  at: number,
  num: number,
): { value: PdfRef; end: number } | undefined {
  const genStart = skipSpace(bytes, at);
  const genEnd = regularEnd(bytes, genStart);
  if (genStart === at || !/^\d+$/.test(latin1Of(bytes, genStart, genEnd))) return undefined;
  const rStart = skipSpace(bytes, genEnd);
  if (rStart === genEnd || bytes[rStart] !== 0x52 || regularEnd(bytes, rStart) !== rStart + 1)
    return undefined;
  const gen = Number(latin1Of(bytes, genStart, genEnd));
  return { value: { type: 'ref', num, gen }, end: rStart + 1 };
}

function regularEnd(bytes: Uint8Array, at: number): number {
  let position = at;
  while (position < bytes.length && !isWhitespace(bytes[position]) && !isDelimiter(bytes[position]))
    position++;
  return position;
}

function literalStringEnd(bytes: Uint8Array, start: number): number {
  let depth = 0;
  for (let position = start; position < bytes.length; position++) {
    const byte = bytes[position];
    if (byte === 0x5c) position++;
    else if (byte === 0x28) depth++;
    else if (byte === 0x29 && --depth === 0) return position + 1;
  }
  throw new PdfSyntaxError('a string is not closed');
}

function decodeName(raw: Uint8Array): string {
  return latin1Of(raw, 0, raw.length).replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

export function latin1Of(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let i = start; i < end && i < bytes.length; i++) text += String.fromCharCode(bytes[i] as number);
  return text;
}

/** `value` as a dictionary, reference, name or number (`undefined` when it is something else). */
export const asDict = (value: PdfValue | undefined): PdfDict | undefined =>
  isTyped(value, 'dict') ? (value as PdfDict) : undefined;
export const asRef = (value: PdfValue | undefined): PdfRef | undefined =>
  isTyped(value, 'ref') ? (value as PdfRef) : undefined;
export const asName = (value: PdfValue | undefined): string | undefined =>
  isTyped(value, 'name') ? (value as PdfName).name : undefined;
export const asNumber = (value: PdfValue | undefined): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

function isTyped(value: PdfValue | undefined, type: string): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && value.type === type;
}
