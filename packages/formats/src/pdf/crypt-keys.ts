// The standard security handler's key algorithms (ISO 32000-2, §7.6.4.3 and §7.6.4.4), for the empty user
// password only: a PDF encrypted "for permissions only" opens without a password in every reader, and so its
// metadata is read here. Written by hand on the injected primitives (MD5, SHA-2, AES-CBC without padding:
// node:crypto on the server, see primitives.ts): the npm PDF libraries that decrypt (pdf.js, pdf-lib forks)
// are whole PDF engines, and these few algorithms are fixed by the standard.
import { concat, hexBytes, latin1Bytes, sameBytes } from '../bytes.js';
import { FormatError } from '../format-error.js';
import type { FormatPrimitives } from '../primitives.js';

/** The 32-byte padding string of Algorithm 2, step a (an empty password is this string). */
export const PASSWORD_PADDING = hexBytes('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a');

/** What Algorithms 2, 4 and 5 (revisions 2–4) read from the encryption dictionary and the trailer. */
export interface LegacyKeyInput {
  revision: 2 | 3 | 4;
  /** Key length in bytes, 5–16 (always 5 for revision 2). */
  keyBytes: number;
  /** `/O`, its first 32 bytes. */
  owner: Uint8Array;
  /** `/U`, its first 32 bytes. */
  user: Uint8Array;
  /** `/P`, as a signed 32-bit integer. */
  permissions: number;
  /** The first string of the trailer's `/ID` (empty when there is none). */
  id: Uint8Array;
  /** `/EncryptMetadata` (revision 4 only changes the key when it is false). */
  encryptMetadata: boolean;
}

/**
 * The file key for the empty user password (Algorithm 2), or `undefined` when the empty password is not the
 * user password (Algorithm 4 for revision 2, Algorithm 5 for revisions 3 and 4: the key must reproduce `/U`).
 */
export function legacyFileKey(p: FormatPrimitives, input: LegacyKeyInput): Uint8Array | undefined {
  const permissions = new Uint8Array(4);
  new DataView(permissions.buffer).setInt32(0, input.permissions | 0, true);
  const parts = [PASSWORD_PADDING, input.owner, permissions, input.id];
  if (input.revision >= 4 && !input.encryptMetadata) parts.push(new Uint8Array([0xff, 0xff, 0xff, 0xff]));
  let key = p.md5(concat(parts)).subarray(0, input.keyBytes);
  if (input.revision >= 3) {
    for (let i = 0; i < 50; i++) key = p.md5(key).subarray(0, input.keyBytes);
  }
  if (input.revision === 2) {
    return sameBytes(rc4(key, PASSWORD_PADDING), input.user) ? key : undefined;
  }
  let check = rc4(key, p.md5(concat([PASSWORD_PADDING, input.id])));
  for (let i = 1; i <= 19; i++)
    check = rc4(
      key.map((byte) => byte ^ i),
      check,
    );
  // Only the first 16 bytes of `/U` are defined (the rest is arbitrary padding).
  return sameBytes(check, input.user.subarray(0, 16)) ? key : undefined;
}

/** What Algorithm 2.A (revisions 5 and 6) reads: `/U` (48 bytes) and `/UE` (32 bytes). */
export interface AesKeyInput {
  revision: 5 | 6;
  user: Uint8Array;
  userKey: Uint8Array;
}

/**
 * The 256-bit file key for the empty user password (Algorithm 2.A): the password's hash with `/U`'s
 * validation salt must equal `/U`'s first 32 bytes; then `/UE` decrypts (AES-256, zero IV, no padding) under
 * the hash with its key salt. `undefined` when the empty password is not the user password.
 */
export function aesFileKey(p: FormatPrimitives, input: AesKeyInput): Uint8Array | undefined {
  const { sha2, aesCbc } = aesPrimitives(p);
  const password = new Uint8Array(0);
  const hash = (salt: Uint8Array) =>
    input.revision === 5
      ? sha2(256, concat([password, salt]))
      : revision6Hash({ sha2, aesCbc }, password, salt);
  const validationSalt = input.user.subarray(32, 40);
  const keySalt = input.user.subarray(40, 48);
  if (!sameBytes(hash(validationSalt), input.user.subarray(0, 32))) return undefined;
  return aesCbc('decrypt', hash(keySalt), new Uint8Array(16), input.userKey.subarray(0, 32));
}

/** SHA-2 and AES-CBC, which AES encryption (`/V` 4 with AESV2, `/V` 5) needs; refused where not injected. */
export function aesPrimitives(p: FormatPrimitives): Required<Pick<FormatPrimitives, 'sha2' | 'aesCbc'>> {
  const { sha2, aesCbc } = p;
  if (sha2 === undefined || aesCbc === undefined) {
    throw new FormatError(
      'encrypted',
      'pdf',
      'This PDF is encrypted with AES, which cannot be decrypted in this runtime (no synchronous AES); read it where node:crypto is injected',
    );
  }
  return { sha2, aesCbc };
}

/**
 * Algorithm 2.B (revision 6), for a user password (no `/U` data is mixed in): SHA-256, then at least 64
 * rounds of AES-128-CBC over 64 copies of password and key, each round's hash (SHA-256, -384 or -512) chosen
 * by the sum of the first 16 encrypted bytes modulo 3, until the last encrypted byte is at most the round
 * number minus 32. That byte is at most 255, so there are at most 288 rounds of at most 12 KiB each.
 */
export function revision6Hash(
  p: Required<Pick<FormatPrimitives, 'sha2' | 'aesCbc'>>,
  password: Uint8Array,
  salt: Uint8Array,
): Uint8Array {
  let key = p.sha2(256, concat([password, salt]));
  let last = 0;
  for (let round = 0; round < 64 || last > round - 32; round++) {
    const block = concat([password, key]);
    const encrypted = p.aesCbc(
      'encrypt',
      key.subarray(0, 16),
      key.subarray(16, 32),
      concat(Array(64).fill(block)),
    );
    let sum = 0;
    for (let i = 0; i < 16; i++) sum += encrypted[i] as number;
    key = p.sha2(([256, 384, 512] as const)[sum % 3] as 256, encrypted);
    last = encrypted[encrypted.length - 1] as number;
  }
  return key.subarray(0, 32);
}

/**
 * The key of one object's strings and streams (Algorithm 1): MD5 of the file key, the object number's low
 * three bytes and the generation's low two bytes (little-endian), and `sAlT` for AES-128; its first
 * `n + 5` bytes, at most 16.
 */
export function objectKey(
  p: FormatPrimitives,
  fileKey: Uint8Array,
  num: number,
  gen: number,
  aes: boolean,
): Uint8Array {
  const suffix = new Uint8Array([
    num & 0xff,
    (num >> 8) & 0xff,
    (num >> 16) & 0xff,
    gen & 0xff,
    (gen >> 8) & 0xff,
  ]);
  const parts = [fileKey, suffix];
  if (aes) parts.push(latin1Bytes('sAlT'));
  return p.md5(concat(parts)).subarray(0, Math.min(fileKey.length + 5, 16));
}

/**
 * RC4 (the "V2" crypt filter, and revisions 2–4's key checks). Hand-written because OpenSSL 3 moved RC4 to
 * its legacy provider, which Node does not load by default: `createCipheriv('rc4', …)` throws there. RC4
 * is symmetric: the same call encrypts and decrypts. Linear in the data.
 */
export function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const state = new Uint8Array(256);
  for (let i = 0; i < 256; i++) state[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + (state[i] as number) + (key[i % key.length] as number)) & 0xff;
    [state[i], state[j]] = [state[j] as number, state[i] as number];
  }
  const out = new Uint8Array(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + (state[i] as number)) & 0xff;
    const si = state[i] as number;
    const sj = state[j] as number;
    state[i] = sj;
    state[j] = si;
    out[n] = (data[n] as number) ^ (state[(si + sj) & 0xff] as number);
  }
  return out;
}

/**
 * AES-CBC decryption of a string or stream: the first 16 bytes are the IV, the rest whole blocks ending in
 * PKCS#5 padding. `undefined` when the data is not that (a length not a multiple of 16, bad padding): the
 * value is damaged and is skipped. 16 bytes (an IV alone) decrypt to nothing.
 */
export function aesDecrypt(p: FormatPrimitives, key: Uint8Array, data: Uint8Array): Uint8Array | undefined {
  if (data.length === 16) return new Uint8Array(0);
  if (data.length < 32 || data.length % 16 !== 0) return undefined;
  const plain = aesPrimitives(p).aesCbc('decrypt', key, data.subarray(0, 16), data.subarray(16));
  const padding = plain[plain.length - 1] as number;
  if (padding < 1 || padding > 16) return undefined;
  for (let i = plain.length - padding; i < plain.length; i++) if (plain[i] !== padding) return undefined;
  return plain.subarray(0, plain.length - padding);
}
