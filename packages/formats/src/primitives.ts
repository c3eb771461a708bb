// What the readers need from the runtime and cannot get synchronously from web APIs alone: zlib inflate with
// a bound on its output, MD5, and for AES-encrypted PDFs SHA-2 and AES-CBC. Injected, so the one reader runs
// on the server with node:zlib and node:crypto (`@siegel/formats/node`) and in browsers with this file's own.
import { inflateBounded } from './inflate.js';
import { md5 } from './md5.js';

/** The runtime's primitives, as every reader takes them (default: {@link webPrimitives}). */
export interface FormatPrimitives {
  /**
   * zlib (RFC 1950) data inflated to at most `maxOutputLength` bytes, or `'too-large'` as soon as it would
   * pass them (a bomb costs at most that much, never what it claims to hold).
   *
   * @throws when the data is not zlib (damaged).
   */
  inflate(data: Uint8Array, maxOutputLength: number): Uint8Array | 'too-large';
  /**
   * `bytes` as Latin-1 text (one character per byte), when the runtime decodes it faster than `latin1` of
   * bytes.ts: the PDF reader searches a whole file as this text (Node's `Buffer` is several times faster).
   */
  latin1?: ((bytes: Uint8Array) => string) | undefined;
  /**
   * CRC-32 of `data` as PNG chunks use it, when the runtime has it native (node:zlib's is ~50× faster than
   * `crc32` of bytes.ts on a 50 MB run).
   */
  crc32?: ((data: Uint8Array) => number) | undefined;
  /** MD5 of `data` (16 bytes). */
  md5(data: Uint8Array): Uint8Array;
  /** SHA-256, -384 or -512 of `data`; without it AES-256 PDFs (`/V` 5) are refused as `encrypted`. */
  sha2?: ((bits: 256 | 384 | 512, data: Uint8Array) => Uint8Array) | undefined;
  /**
   * AES-CBC without padding over whole 16-byte blocks, 128 or 256 bits by the key's length; without it
   * AES-encrypted PDFs are refused as `encrypted`.
   */
  aesCbc?:
    | ((direction: 'encrypt' | 'decrypt', key: Uint8Array, iv: Uint8Array, data: Uint8Array) => Uint8Array)
    | undefined;
}

/**
 * The primitives of every runtime, in plain TypeScript. Web Crypto has SHA-2 and AES but only behind
 * promises, and `DecompressionStream` only as a stream, while the readers are synchronous (the server runs
 * them in a worker thread, one file at a time): so inflate and MD5 are our own here, bounded by
 * `maxOutputLength` like zlib's; RC4 is always our own (pdf/crypt-keys.ts, OpenSSL 3 dropped it). AES is
 * left out: AES-encrypted PDFs are read where node:crypto is injected.
 *
 * @example
 * ```ts
 * readAuthor(bytes, { primitives: webPrimitives });
 * ```
 */
export const webPrimitives: FormatPrimitives = {
  inflate: inflateBounded,
  md5,
};
