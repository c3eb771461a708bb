import { FormatError } from '../format-error.js';
import { FORMAT_LIMITS, pastLimit } from '../limits.js';
import type { FormatPrimitives } from '../primitives.js';
import { aesDecrypt, aesFileKey, legacyFileKey, objectKey, rc4 } from './crypt-keys.js';
import { nameOf, type PdfDict, type PdfValue } from './syntax.js';

const MAX_DECRYPTED_BYTES = FORMAT_LIMITS.pdf_decrypted_bytes;

/** How one crypt filter decrypts: RC4, AES-128 or AES-256, or not at all (`Identity`, `/CFM /None`). */
type CryptMethod = 'rc4' | 'aes128' | 'aes256' | 'identity';

/**
 * Decrypts the strings and streams of a PDF encrypted by the standard security handler whose user password
 * is empty ("permissions only"): what every PDF reader opens without asking. Every byte decrypted counts
 * against `pdf_decrypted_bytes` for the file.
 */
export interface PdfDecryptor {
  /** A string of object `num` (generation `gen`); `undefined` when it cannot be decrypted (damaged). */
  decryptString(bytes: Uint8Array, num: number, gen: number): Uint8Array | undefined;
  /**
   * The data of stream object `num`, by the document's stream filter or, when given, the crypt filter the
   * stream names itself (`/Filter /Crypt`, `/DecodeParms /Name`); `undefined` when it cannot be decrypted.
   */
  decryptStream(bytes: Uint8Array, num: number, gen: number, cryptFilter?: string): Uint8Array | undefined;
  /** Whether the document's XMP metadata stream is encrypted (`/EncryptMetadata`, default true). */
  readonly encryptMetadata: boolean;
}

/** The error for a PDF that needs a password to open (its metadata is encrypted with an unknown key). */
function passwordRequired() {
  return new FormatError(
    'encrypted',
    'pdf',
    'This PDF is protected by a password: it cannot be opened without it, so its author cannot be read. Save a copy without the open password (a PDF restricted only by permissions is fine) and upload that',
  );
}

function unsupported(what: string) {
  return new FormatError(
    'encrypted',
    'pdf',
    `This PDF is encrypted with ${what}, which cannot be read here: only the standard security handler (RC4 or AES, PDF 1.1–2.0) with an empty user password is. Save a copy without encryption and upload that`,
  );
}

function damaged(what: string) {
  return new FormatError('damaged', 'pdf', `This PDF's encryption dictionary is damaged: ${what}`);
}

/**
 * Open the standard security handler of ISO 32000-2 §7.6.4 for the empty user password: check the
 * encryption dictionary (`/V` 1, 2, 4 or 5; `/R` 2–6; crypt filters `V2`, `AESV2`, `AESV3`, `None`), derive
 * the file key and check it against `/U`.
 *
 * @param encrypt The trailer's `/Encrypt` dictionary, its values resolved.
 * @param id The first string of the trailer's `/ID` (revisions 2–4 mix it into the key).
 * @throws {FormatError}: another security handler, an unknown algorithm or revision, a
 *   damaged dictionary, or a PDF whose user password is not empty.
 */
export function openStandardSecurity(
  encrypt: PdfDict,
  id: Uint8Array | undefined,
  primitives: FormatPrimitives,
): PdfDecryptor {
  const filter = encrypt.get('Filter');
  const filterName = nameOf(filter);
  if (filterName !== 'Standard') {
    throw unsupported(
      filterName === undefined ? 'no security handler named' : `the \`/${filterName}\` security handler`,
    );
  }
  const version = encrypt.get('V') ?? 0;
  const revision = encrypt.get('R');
  if (version !== 1 && version !== 2 && version !== 4 && version !== 5)
    throw unsupported(`algorithm \`/V ${String(version)}\``);
  if (revision !== 2 && revision !== 3 && revision !== 4 && revision !== 5 && revision !== 6)
    throw unsupported(`revision \`/R ${String(revision)}\` of the standard handler`);
  const encryptMetadata = encrypt.get('EncryptMetadata') !== false;
  const owner = stringOf(encrypt.get('O'), 'O');
  const user = stringOf(encrypt.get('U'), 'U');
  let fileKey: Uint8Array | undefined;
  let stringMethod: CryptMethod;
  let streamMethod: CryptMethod;
  let filters = new Map<string, CryptMethod>();
  if (version === 5) {
    if (revision !== 5 && revision !== 6) throw unsupported(`\`/V 5\` with \`/R ${revision}\``);
    if (owner.length < 48 || user.length < 48) throw damaged('`/O` or `/U` is shorter than 48 bytes');
    const userKey = stringOf(encrypt.get('UE'), 'UE');
    if (userKey.length < 32) throw damaged('`/UE` is shorter than 32 bytes');
    fileKey = aesFileKey(primitives, { revision, user, userKey });
  } else {
    if (revision === 5 || revision === 6) throw unsupported(`\`/V ${version}\` with \`/R ${revision}\``);
    if (owner.length < 32 || user.length < 32) throw damaged('`/O` or `/U` is shorter than 32 bytes');
    const permissions = encrypt.get('P');
    if (typeof permissions !== 'number' || !Number.isInteger(permissions))
      throw damaged('`/P` is not an integer');
    fileKey = legacyFileKey(primitives, {
      revision,
      keyBytes: revision === 2 ? 5 : legacyKeyBytes(encrypt, version),
      owner: owner.subarray(0, 32),
      user: user.subarray(0, 32),
      permissions,
      id: id ?? new Uint8Array(0),
      encryptMetadata,
    });
  }
  if (version === 4 || version === 5) {
    filters = cryptFilters(encrypt.get('CF'), version);
    stringMethod = filterMethod(filters, encrypt.get('StrF'));
    streamMethod = filterMethod(filters, encrypt.get('StmF'));
  } else {
    stringMethod = 'rc4';
    streamMethod = 'rc4';
  }
  if (fileKey === undefined) throw passwordRequired();
  const key = fileKey;
  let decrypted = 0;
  const decrypt = (method: CryptMethod, bytes: Uint8Array, num: number, gen: number) => {
    if (method === 'identity') return bytes;
    decrypted += bytes.length;
    if (decrypted > MAX_DECRYPTED_BYTES) {
      throw pastLimit(
        'pdf_decrypted_bytes',
        `This PDF's encrypted strings and streams read come to more than ${MAX_DECRYPTED_BYTES} bytes; it is not read`,
      );
    }
    if (method === 'aes256') return aesDecrypt(primitives, key, bytes);
    const perObject = objectKey(primitives, key, num, gen, method === 'aes128');
    return method === 'rc4' ? rc4(perObject, bytes) : aesDecrypt(primitives, perObject, bytes);
  };
  return {
    encryptMetadata,
    decryptString: (bytes, num, gen) => decrypt(stringMethod, bytes, num, gen),
    decryptStream: (bytes, num, gen, cryptFilter) =>
      decrypt(
        cryptFilter === undefined ? streamMethod : filterMethod(filters, { type: 'name', name: cryptFilter }),
        bytes,
        num,
        gen,
      ),
  };
}

/** Key length in bytes for `/V` 2 and 4: `/Length` in bits (40–128, a multiple of 8), else the crypt filter's. */
function legacyKeyBytes(encrypt: PdfDict, version: 1 | 2 | 4): number {
  if (version === 1) return 5;
  let bits = encrypt.get('Length');
  if (bits === undefined && version === 4) {
    // Some writers leave `/Length` out in V4 and give the filter's instead (in bytes, or in bits).
    const filter = dictOf(dictOf(encrypt.get('CF'))?.get(nameOf(encrypt.get('StmF')) ?? ''));
    const length = filter?.get('Length');
    bits = typeof length === 'number' && length < 40 ? length * 8 : (length ?? 128);
  }
  bits ??= 40;
  if (typeof bits !== 'number' || !Number.isInteger(bits) || bits < 40 || bits > 128 || bits % 8 !== 0) {
    throw damaged(`the key length \`/Length ${String(bits)}\` is not 40–128 bits in steps of 8`);
  }
  return bits / 8;
}

/** The crypt filters of `/CF` (V4, V5) by name, with the standard `Identity`. */
function cryptFilters(value: PdfValue | undefined, version: 4 | 5): Map<string, CryptMethod> {
  const filters = new Map<string, CryptMethod>([['Identity', 'identity']]);
  const dict = dictOf(value);
  if (dict === undefined) return filters;
  for (const [name, entry] of dict) {
    if (name === 'Identity') continue; // the standard name cannot be redefined
    const method = nameOf(dictOf(entry)?.get('CFM')) ?? 'None';
    if (method === 'None') filters.set(name, 'identity');
    else if (method === 'V2' && version === 4) filters.set(name, 'rc4');
    else if (method === 'AESV2' && version === 4) filters.set(name, 'aes128');
    else if (method === 'AESV3' && version === 5) filters.set(name, 'aes256');
    else throw unsupported(`the crypt filter method \`/${method}\` (in \`/V ${version}\`)`);
  }
  return filters;
}

/** The method of the crypt filter `name` (`StrF`, `StmF` or a stream's own); absent means `Identity`. */
function filterMethod(filters: Map<string, CryptMethod>, name: PdfValue | undefined): CryptMethod {
  const filterName = nameOf(name) ?? 'Identity';
  const method = filters.get(filterName);
  if (method === undefined) throw damaged(`the crypt filter \`/${filterName}\` is not defined in \`/CF\``);
  return method;
}

function stringOf(value: PdfValue | undefined, key: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw damaged(`\`/${key}\` is not a string`);
  return value;
}

function dictOf(value: PdfValue | undefined): PdfDict | undefined {
  return value instanceof Map ? value : undefined;
}
