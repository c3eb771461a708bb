import * as nip19 from 'nostr-tools/nip19';
import * as nip49 from 'nostr-tools/nip49';
import { BunkerError } from './errors.js';

/** NIP-49 scrypt cost (log2 N) for keys the bunker encrypts: 16, the NIP's and nostr-tools' default. */
export const SCRYPT_LOG_N = 16;

/** The least length of a passphrase that encrypts a key. */
export const MIN_PASSPHRASE_LENGTH = 8;

/** A secret key to store, with the NIP-49 key-security byte that describes its history. */
export interface SecretKeyInput {
  secretKey: Uint8Array;
  /** The `ncryptsec` to store as given (an imported `ncryptsec`), instead of encrypting anew. */
  ncryptsec?: string;
  /** NIP-49 key security byte: 0x01 = never handled insecurely (generated here), 0x02 = unknown. */
  keySecurity: 0x01 | 0x02;
}

/**
 * Decode a key to import: `nsec1…`, 64 hex characters, or `ncryptsec1…` (decrypted with `passphrase` to
 * check it and learn its public key; it is then stored as given).
 *
 * @throws {BunkerError} `invalid_request` when the key cannot be read or is not a valid secret key (32
 *   bytes, a scalar from 1 to n − 1; the key itself is never quoted), `forbidden` when an `ncryptsec` does
 *   not open with the passphrase.
 */
export function decodeSecretKey(input: string, passphrase: string): SecretKeyInput {
  const key = input.trim();
  if (key.startsWith('ncryptsec1')) {
    const problem = checkNcryptsec(key);
    if (problem)
      throw new BunkerError('invalid_request', `The \`ncryptsec\` to import is malformed: ${problem}`);
    let secretKey: Uint8Array;
    try {
      secretKey = nip49.decrypt(key, passphrase);
    } catch (cause) {
      // A wrong passphrase fails the AEAD tag check; anything else is a damaged string (e.g. its checksum).
      throw cause instanceof Error && /tag/i.test(cause.message)
        ? new BunkerError('forbidden', 'The passphrase does not open the `ncryptsec` to import')
        : new BunkerError('invalid_request', 'The `ncryptsec` to import is malformed', { cause });
    }
    assertSecretKey(secretKey, '`ncryptsec`');
    return { secretKey, ncryptsec: key, keySecurity: 0x02 };
  }
  if (key.startsWith('nsec1')) {
    let secretKey: Uint8Array | undefined;
    try {
      const decoded = nip19.decode(key as `nsec1${string}`);
      if (decoded.type === 'nsec') secretKey = decoded.data;
    } catch {
      // reported below
    }
    if (!secretKey) throw new BunkerError('invalid_request', 'The `nsec` to import is malformed');
    assertSecretKey(secretKey, '`nsec`');
    return { secretKey, keySecurity: 0x02 };
  }
  if (/^[0-9a-fA-F]{64}$/.test(key)) {
    const secretKey = new Uint8Array(Buffer.from(key, 'hex'));
    assertSecretKey(secretKey, 'hex key');
    return { secretKey, keySecurity: 0x02 };
  }
  throw new BunkerError(
    'invalid_request',
    'A key to import must be an `nsec1…`, an `ncryptsec1…` or 64 hex characters',
  );
}

/** The order n of secp256k1's group: a secret key is a scalar from 1 to n − 1. */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * Check that decoded bytes make a secret key: exactly 32 bytes, a scalar from 1 to n − 1. The signing
 * engines throw (or, for other lengths, silently use other bytes) on anything else.
 *
 * @param what - how the key to import was given, for the message (the key itself is never quoted).
 * @throws {BunkerError} `invalid_request`.
 */
export function assertSecretKey(secretKey: Uint8Array, what: string): void {
  if (secretKey.length !== 32) {
    throw new BunkerError(
      'invalid_request',
      `The ${what} to import holds ${secretKey.length} bytes, expected 32: it is not a secret key`,
    );
  }
  if (!isValidSecretKey(secretKey)) {
    throw new BunkerError(
      'invalid_request',
      `The ${what} to import is not a valid secp256k1 secret key: it must be a number from 1 to n − 1 (the group order)`,
    );
  }
}

/** Whether `secretKey` is 32 bytes holding a scalar from 1 to n − 1. */
export function isValidSecretKey(secretKey: Uint8Array): boolean {
  if (secretKey.length !== 32) return false;
  const scalar = BigInt(`0x${Buffer.from(secretKey).toString('hex')}`);
  return scalar !== 0n && scalar < SECP256K1_ORDER;
}

/**
 * Encrypt a secret key with NIP-49 (scrypt log N = {@link SCRYPT_LOG_N}).
 *
 * @throws {BunkerError} `invalid_request` when the passphrase is shorter than {@link MIN_PASSPHRASE_LENGTH}.
 */
export function encryptSecretKey(
  secretKey: Uint8Array,
  passphrase: string,
  keySecurity: 0x01 | 0x02,
): string {
  assertPassphrase(passphrase);
  return nip49.encrypt(secretKey, passphrase, SCRYPT_LOG_N, keySecurity);
}

/** @throws {BunkerError} `invalid_request` unless `passphrase` is a string of at least 8 characters. */
export function assertPassphrase(passphrase: unknown): asserts passphrase is string {
  if (typeof passphrase !== 'string' || passphrase.length < MIN_PASSPHRASE_LENGTH) {
    throw new BunkerError(
      'invalid_request',
      `\`passphrase\` must be a string of at least ${MIN_PASSPHRASE_LENGTH} characters`,
    );
  }
}

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** The largest scrypt cost accepted in an imported `ncryptsec`: log N 20 already takes 1 GiB of memory. */
const MAX_IMPORT_LOG_N = 20;

/**
 * Check the structure of an `ncryptsec` before running scrypt on it: its length, alphabet, version byte,
 * and a scrypt cost this machine can afford (a crafted log N of 40 would hang the process).
 */
export function checkNcryptsec(text: string): string | undefined {
  const lower = text.toLowerCase();
  if (lower !== text && text.toUpperCase() !== text) return 'mixed case';
  const data = lower.slice('ncryptsec1'.length);
  if (data.length !== 152) return 'wrong length';
  const words: number[] = [];
  for (const char of data.slice(0, -6)) {
    const word = BECH32_CHARSET.indexOf(char);
    if (word < 0) return `character \`${char}\` is not bech32`;
    words.push(word);
  }
  // The first two bytes (version, log N) come from the first 16 bits = 4 words and a bit.
  const bits = words.slice(0, 4).reduce((acc, w) => (acc << 5) | w, 0); // 20 bits
  const version = bits >>> 12;
  const logN = (bits >>> 4) & 0xff;
  if (version !== 2) return `version ${version}, expected 2`;
  if (logN < 1 || logN > MAX_IMPORT_LOG_N) return `scrypt log N ${logN} out of range 1–${MAX_IMPORT_LOG_N}`;
  return undefined;
}
