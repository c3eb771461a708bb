// zlib inflate (RFC 1950 around RFC 1951) in plain TypeScript, synchronous and bounded: the browsers' default
// for `FormatPrimitives.inflate` (web APIs inflate only through the asynchronous `DecompressionStream`).
// Written after zlib's `puff.c`: canonical Huffman codes decoded a bit at a time — small and clear rather
// than fast; the server injects node:zlib instead.

/** A canonical Huffman code: how many codes of each length, and the symbols in code order. */
interface Huffman {
  counts: Uint16Array;
  symbols: Uint16Array;
}

const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
  227, 258,
];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
  6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA = [
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];
/** The order code length code lengths are sent in (RFC 1951 §3.2.7). */
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

class TooLarge extends Error {}

function huffman(lengths: ArrayLike<number>): Huffman {
  const counts = new Uint16Array(16);
  for (let i = 0; i < lengths.length; i++)
    counts[lengths[i] as number] = (counts[lengths[i] as number] as number) + 1;
  const offsets = new Uint16Array(16);
  for (let len = 1; len < 15; len++) offsets[len + 1] = (offsets[len] as number) + (counts[len] as number);
  const symbols = new Uint16Array(lengths.length);
  for (let i = 0; i < lengths.length; i++) {
    const len = lengths[i] as number;
    if (len === 0) continue;
    const at = offsets[len] as number;
    symbols[at] = i;
    offsets[len] = at + 1;
  }
  return { counts, symbols };
}

let fixed: { lengths: Huffman; distances: Huffman } | undefined;

function fixedCodes(): { lengths: Huffman; distances: Huffman } {
  if (fixed === undefined) {
    const lengths = new Uint8Array(288);
    lengths.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
    fixed = { lengths: huffman(lengths), distances: huffman(new Uint8Array(30).fill(5)) };
  }
  return fixed;
}

class Inflater {
  private at = 0;
  private bitBuffer = 0;
  private bitCount = 0;
  private out: Uint8Array;
  private length = 0;

  constructor(
    private readonly data: Uint8Array,
    private readonly max: number,
  ) {
    this.out = new Uint8Array(Math.min(max, Math.max(1024, data.length * 4)));
  }

  private bits(n: number): number {
    let value = this.bitBuffer;
    while (this.bitCount < n) {
      if (this.at >= this.data.length) throw new Error('unexpected end of file');
      value |= (this.data[this.at++] as number) << this.bitCount;
      this.bitCount += 8;
    }
    this.bitBuffer = value >>> n;
    this.bitCount -= n;
    return value & ((1 << n) - 1);
  }

  private decode(code: Huffman): number {
    let value = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len <= 15; len++) {
      value |= this.bits(1);
      const count = code.counts[len] as number;
      if (value - count < first) return code.symbols[index + (value - first)] as number;
      index += count;
      first = (first + count) << 1;
      value <<= 1;
    }
    throw new Error('invalid Huffman code');
  }

  private reserve(n: number): void {
    if (this.length + n > this.max) throw new TooLarge();
    if (this.length + n <= this.out.length) return;
    const grown = new Uint8Array(Math.min(this.max, Math.max(this.length + n, this.out.length * 2)));
    grown.set(this.out.subarray(0, this.length));
    this.out = grown;
  }

  run(): Uint8Array {
    let last = 0;
    while (last === 0) {
      last = this.bits(1);
      const type = this.bits(2);
      if (type === 0) this.stored();
      else if (type === 1) this.codes(fixedCodes().lengths, fixedCodes().distances);
      else if (type === 2) this.dynamic();
      else throw new Error('invalid block type');
    }
    return this.out.slice(0, this.length);
  }

  private stored(): void {
    this.bitBuffer = 0;
    this.bitCount = 0;
    if (this.at + 4 > this.data.length) throw new Error('unexpected end of file');
    const len = (this.data[this.at] as number) | ((this.data[this.at + 1] as number) << 8);
    const nlen = (this.data[this.at + 2] as number) | ((this.data[this.at + 3] as number) << 8);
    if (len !== (~nlen & 0xffff)) throw new Error('invalid stored block lengths');
    this.at += 4;
    if (this.at + len > this.data.length) throw new Error('unexpected end of file');
    this.reserve(len);
    this.out.set(this.data.subarray(this.at, this.at + len), this.length);
    this.length += len;
    this.at += len;
  }

  private dynamic(): void {
    const nlen = this.bits(5) + 257;
    const ndist = this.bits(5) + 1;
    const ncode = this.bits(4) + 4;
    if (nlen > 286 || ndist > 30) throw new Error('invalid code lengths');
    const clens = new Uint8Array(19);
    for (let i = 0; i < ncode; i++) clens[CLEN_ORDER[i] as number] = this.bits(3);
    const clenCode = huffman(clens);
    const lengths = new Uint8Array(nlen + ndist);
    for (let i = 0; i < nlen + ndist; ) {
      const symbol = this.decode(clenCode);
      if (symbol < 16) {
        lengths[i++] = symbol;
        continue;
      }
      let repeat: number;
      let value = 0;
      if (symbol === 16) {
        if (i === 0) throw new Error('invalid repeat');
        value = lengths[i - 1] as number;
        repeat = 3 + this.bits(2);
      } else repeat = symbol === 17 ? 3 + this.bits(3) : 11 + this.bits(7);
      if (i + repeat > nlen + ndist) throw new Error('invalid repeat');
      lengths.fill(value, i, i + repeat);
      i += repeat;
    }
    this.codes(huffman(lengths.subarray(0, nlen)), huffman(lengths.subarray(nlen)));
  }

  private codes(lengthCode: Huffman, distanceCode: Huffman): void {
    for (;;) {
      const symbol = this.decode(lengthCode);
      if (symbol < 256) {
        this.reserve(1);
        this.out[this.length++] = symbol;
      } else if (symbol === 256) {
        return;
      } else {
        const index = symbol - 257;
        if (index >= 29) throw new Error('invalid length symbol');
        const len = (LENGTH_BASE[index] as number) + this.bits(LENGTH_EXTRA[index] as number);
        const distSymbol = this.decode(distanceCode);
        if (distSymbol >= 30) throw new Error('invalid distance symbol');
        const dist = (DIST_BASE[distSymbol] as number) + this.bits(DIST_EXTRA[distSymbol] as number);
        if (dist > this.length) throw new Error('invalid distance too far back');
        this.reserve(len);
        for (let i = 0; i < len; i++, this.length++)
          this.out[this.length] = this.out[this.length - dist] as number;
      }
    }
  }
}

/**
 * zlib data inflated to at most `maxOutputLength` bytes, `'too-large'` past them.
 *
 * @example
 * ```ts
 * inflateBounded(zlibBytes, 1 << 20);
 * ```
 * @throws {Error} when the data is not zlib (a bad header, a broken code, the end reached too soon).
 */
export function inflateBounded(data: Uint8Array, maxOutputLength: number): Uint8Array | 'too-large' {
  const cmf = data[0] ?? 0;
  const flg = data[1] ?? 0;
  if ((cmf & 0x0f) !== 8 || ((cmf << 8) | flg) % 31 !== 0 || flg & 0x20)
    throw new Error('incorrect header check');
  try {
    return new Inflater(data.subarray(2), maxOutputLength).run();
  } catch (error) {
    if (error instanceof TooLarge) return 'too-large';
    throw error;
  }
}
