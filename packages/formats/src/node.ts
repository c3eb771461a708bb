// The server's primitives: node:zlib's inflate with `maxOutputLength` (native, and it stops as soon as the
// output would pass the bound) and CRC-32, `Buffer`'s Latin-1 decoder, and node:crypto's MD5, SHA-2 and AES.
// Its own entry (`@siegel/formats/node`), so the package's main entry stays free of Node built-ins.
// biome-ignore lint/suspicious/noTsIgnore: the package builds without Node types, the tests with them
// @ts-ignore -- the package compiles without Node's types (web APIs only); this file runs on Node alone.
import { Buffer } from 'node:buffer';
// biome-ignore lint/suspicious/noTsIgnore: the package builds without Node types, the tests with them
// @ts-ignore -- as above.
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
// biome-ignore lint/suspicious/noTsIgnore: the package builds without Node types, the tests with them
// @ts-ignore -- as above.
import * as zlib from 'node:zlib';
import type { FormatPrimitives } from './primitives.js';

type Bytes = Uint8Array;
interface NodeCipher {
  setAutoPadding(on: boolean): void;
  update(data: Bytes): Bytes;
  final(): Bytes;
}
const cipher = {
  encrypt: createCipheriv as (algorithm: string, key: Bytes, iv: Bytes) => NodeCipher,
  decrypt: createDecipheriv as (algorithm: string, key: Bytes, iv: Bytes) => NodeCipher,
};
const hash = createHash as (algorithm: string) => { update(data: Bytes): { digest(): Bytes } };
const inflate = zlib.inflateSync as (data: Bytes, options: { maxOutputLength: number }) => Bytes;
const nodeBuffer = Buffer as {
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'latin1'): string };
};

/**
 * {@link FormatPrimitives} on node:zlib and node:crypto: every PDF encryption the standard handler knows
 * opens, and inflating runs native.
 *
 * @example
 * ```ts
 * import { readAuthor } from '@siegel/formats';
 * import { nodePrimitives } from '@siegel/formats/node';
 * readAuthor(bytes, { primitives: nodePrimitives });
 * ```
 */
export const nodePrimitives: FormatPrimitives = {
  inflate(data, maxOutputLength) {
    try {
      return inflate(data, { maxOutputLength: Math.max(1, maxOutputLength) });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return 'too-large';
      throw error;
    }
  },
  latin1: (bytes) => nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'),
  // zlib.crc32 came in Node 20.15 and 22.2; before, the plain one of bytes.ts.
  crc32: zlib.crc32 as ((data: Bytes) => number) | undefined,
  md5: (data) => hash('md5').update(data).digest(),
  sha2: (bits, data) => hash(`sha${bits}`).update(data).digest(),
  aesCbc(direction, key, iv, data) {
    const run = cipher[direction](key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc', key, iv);
    run.setAutoPadding(false);
    const head = run.update(data);
    const tail = run.final();
    if (tail.length === 0) return head;
    const out = new Uint8Array(head.length + tail.length);
    out.set(head);
    out.set(tail, head.length);
    return out;
  },
};
