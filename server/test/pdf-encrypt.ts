// The writer's side of the standard security handler (ISO 32000-2 §7.6.4), for hand-built encrypted PDFs:
// damaged dictionaries, hostile streams and the corners real writers rarely produce (a stream's own crypt
// filter, `/StrF /Identity`, strings in object streams). The keys and `/O`, `/U`, `/UE` follow the standard
// forward (Algorithms 2, 3, 5, 8, 9), for any user password; RC4 and the revision 6 hash come from the
// reader (packages/formats/src/pdf/crypt-keys.ts), whose known-answer vectors from qpdf check them.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { nodePrimitives } from '../../packages/formats/src/node.js';
import * as keys from '../../packages/formats/src/pdf/crypt-keys.js';
import { PASSWORD_PADDING, rc4 } from '../../packages/formats/src/pdf/crypt-keys.js';

const aesPrimitives = keys.aesPrimitives(nodePrimitives);
const revision6Hash = (password: Uint8Array, salt: Uint8Array) =>
  keys.revision6Hash(aesPrimitives, password, salt);
const objectKey = (fileKey: Uint8Array, num: number, gen: number, aes: boolean) =>
  keys.objectKey(nodePrimitives, fileKey, num, gen, aes);

/** Which revision (and, for revision 4, which cipher) a test file is encrypted with. */
export type Revision = 'R2' | 'R3' | 'R4-RC4' | 'R4-AES' | 'R5' | 'R6';
export const REVISIONS: readonly Revision[] = ['R2', 'R3', 'R4-RC4', 'R4-AES', 'R5', 'R6'];

export interface EncryptionOptions {
  /** The user password (default empty: "permissions only"). */
  userPassword?: string;
  /** `/EncryptMetadata` (revisions 4–6; default true). */
  encryptMetadata?: boolean;
  /** Replaces or adds entries of the encryption dictionary (`/V 3`, `/Filter /Adobe.PubSec`, …). */
  override?: string;
  /** `/StrF` (default `/StdCF`). */
  stringFilter?: string;
}

const hex = (bytes: Uint8Array) => `<${Buffer.from(bytes).toString('hex')}>`;

function pad(password: string): Buffer {
  return Buffer.concat([Buffer.from(password, 'latin1'), PASSWORD_PADDING]).subarray(0, 32);
}

function aes(
  mode: 'aes-128-cbc' | 'aes-256-cbc',
  key: Uint8Array,
  iv: Uint8Array,
  data: Uint8Array,
  padding = true,
) {
  const cipher = createCipheriv(mode, key, iv);
  cipher.setAutoPadding(padding);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

/** Text as a PDF string's bytes: PDFDocEncoding for ASCII, else UTF-16BE with its byte-order mark. */
export function pdfTextBytes(text: string): Buffer {
  if ([...text].every((c) => (c.codePointAt(0) ?? 0) < 0x80)) return Buffer.from(text, 'latin1');
  const utf16 = Buffer.from(text, 'utf16le').swap16();
  return Buffer.concat([Buffer.from([0xfe, 0xff]), utf16]);
}

/** Encrypts the strings and streams of one file, and writes its encryption dictionary. */
export class PdfEncryptor {
  readonly id = randomBytes(16);
  readonly fileKey: Buffer;
  readonly dictionary: string;
  private readonly aes: boolean;

  constructor(
    readonly revision: Revision,
    options: EncryptionOptions = {},
  ) {
    const password = options.userPassword ?? '';
    const encryptMetadata = options.encryptMetadata ?? true;
    const metadataEntry = encryptMetadata ? '' : ' /EncryptMetadata false';
    const strF = options.stringFilter ?? '/StdCF';
    this.aes = revision === 'R4-AES' || revision === 'R5' || revision === 'R6';
    if (revision === 'R5' || revision === 'R6') {
      const hash = (salt: Uint8Array) =>
        revision === 'R5'
          ? createHash('sha256').update(password, 'utf8').update(salt).digest()
          : revision6Hash(Buffer.from(password, 'utf8'), salt);
      this.fileKey = randomBytes(32);
      const validationSalt = randomBytes(8);
      const keySalt = randomBytes(8);
      const user = Buffer.concat([hash(validationSalt), validationSalt, keySalt]);
      const userKey = aes('aes-256-cbc', hash(keySalt), Buffer.alloc(16), this.fileKey, false);
      // The owner entries are not read for an empty user password: random bytes of the right length.
      this.dictionary = `<< /Filter /Standard /V 5 /R ${revision.slice(1)} /Length 256 /P -4 /O ${hex(randomBytes(48))} /U ${hex(user)} /OE ${hex(randomBytes(32))} /UE ${hex(userKey)} /Perms ${hex(randomBytes(16))} /CF << /StdCF << /CFM /AESV3 /AuthEvent /DocOpen /Length 32 >> >> /StmF /StdCF /StrF ${strF}${metadataEntry}${options.override ?? ''} >>`;
      return;
    }
    const r = revision === 'R2' ? 2 : revision === 'R3' ? 3 : 4;
    const keyBytes = r === 2 ? 5 : 16;
    // Algorithm 3: `/O` from the owner password "owner".
    let ownerKey = createHash('md5').update(pad('owner')).digest();
    if (r >= 3) for (let i = 0; i < 50; i++) ownerKey = createHash('md5').update(ownerKey).digest();
    ownerKey = ownerKey.subarray(0, keyBytes);
    let owner = rc4(ownerKey, pad(password));
    if (r >= 3)
      for (let i = 1; i <= 19; i++)
        owner = rc4(
          ownerKey.map((b) => b ^ i),
          owner,
        );
    // Algorithm 2: the file key from the user password.
    const permissions = Buffer.alloc(4);
    permissions.writeInt32LE(-4);
    const md5 = createHash('md5').update(pad(password)).update(owner).update(permissions).update(this.id);
    if (r === 4 && !encryptMetadata) md5.update(Buffer.from([0xff, 0xff, 0xff, 0xff]));
    let key = md5.digest().subarray(0, keyBytes);
    if (r >= 3)
      for (let i = 0; i < 50; i++) key = createHash('md5').update(key).digest().subarray(0, keyBytes);
    this.fileKey = key;
    // Algorithm 4 (revision 2) or 5 (3 and 4): `/U`.
    let user: Uint8Array;
    if (r === 2) {
      user = rc4(key, PASSWORD_PADDING);
    } else {
      user = rc4(key, createHash('md5').update(PASSWORD_PADDING).update(this.id).digest());
      for (let i = 1; i <= 19; i++)
        user = rc4(
          key.map((b) => b ^ i),
          user,
        );
      user = Buffer.concat([user, randomBytes(16)]);
    }
    const v = r === 2 ? 1 : r === 3 ? 2 : 4;
    const filters =
      r === 4
        ? ` /CF << /StdCF << /CFM /${this.aes ? 'AESV2' : 'V2'} /AuthEvent /DocOpen /Length 16 >> >> /StmF /StdCF /StrF ${strF}${metadataEntry}`
        : '';
    this.dictionary = `<< /Filter /Standard /V ${v} /R ${r} /Length ${keyBytes * 8} /P -4 /O ${hex(owner)} /U ${hex(user)}${filters}${options.override ?? ''} >>`;
  }

  /** `bytes` encrypted as a string or stream of object `num`. */
  encrypt(bytes: Uint8Array, num: number, gen = 0): Buffer {
    if (this.revision === 'R5' || this.revision === 'R6') {
      const iv = randomBytes(16);
      return Buffer.concat([iv, aes('aes-256-cbc', this.fileKey, iv, bytes)]);
    }
    const key = objectKey(this.fileKey, num, gen, this.aes);
    if (!this.aes) return Buffer.from(rc4(key, bytes));
    const iv = randomBytes(16);
    return Buffer.concat([iv, aes('aes-128-cbc', key, iv, bytes)]);
  }

  /** A text string of object `num`, encrypted, as a hex string (`<…>`). */
  string(text: string, num: number, gen = 0): string {
    return hex(this.encrypt(pdfTextBytes(text), num, gen));
  }

  /** A stream object's body: `dictionary` (without `/Length`), `data` deflated (unless `raw`) then encrypted. */
  stream(num: number, dictionary: string, data: Uint8Array, raw = false, encrypt = true): Buffer {
    const encoded = raw ? data : deflateSync(data, { level: 9 });
    const body = encrypt ? this.encrypt(encoded, num) : Buffer.from(encoded);
    const filter = raw ? '' : ' /Filter /FlateDecode';
    return Buffer.concat([
      Buffer.from(`<< ${dictionary}${filter} /Length ${body.length} >>\nstream\n`, 'latin1'),
      body,
      Buffer.from('\nendstream', 'latin1'),
    ]);
  }
}
