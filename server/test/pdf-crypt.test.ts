// The standard security handler (ISO 32000-2 §7.6.4) for PDFs encrypted with an empty user password:
// known-answer vectors from qpdf for each revision, hand-built encrypted files for each revision and corner,
// and the refusals (a real password, other handlers, damaged dictionaries, hostile streams).
import { createCipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodePrimitives } from '../../packages/formats/src/node.js';
import * as keys from '../../packages/formats/src/pdf/crypt-keys.js';
import { rc4 } from '../../packages/formats/src/pdf/crypt-keys.js';
import { ApiError } from '../src/http/api-error.js';
import { analyzeFile } from '../src/metadata/analyze-file.js';
import { ANALYSIS_LIMITS } from '../src/metadata/limits.js';
import { readPdfMetadata } from '../src/metadata/readers.js';
import { asApiError } from './format-refusal.js';

// The key algorithms on the server's primitives (node:crypto), their keys as Buffers for the hex vectors.
const asBuffer = (key: Uint8Array | undefined) => (key === undefined ? undefined : Buffer.from(key));
const legacyFileKey = (input: keys.LegacyKeyInput) => asBuffer(keys.legacyFileKey(nodePrimitives, input));
const aesFileKey = (input: keys.AesKeyInput) => asBuffer(keys.aesFileKey(nodePrimitives, input));
const aesDecrypt = (key: Uint8Array, data: Uint8Array) => keys.aesDecrypt(nodePrimitives, key, data);
const objectKey = (fileKey: Uint8Array, num: number, gen: number, aes: boolean) =>
  keys.objectKey(nodePrimitives, fileKey, num, gen, aes);

import * as hostile from './hostile-files.js';
import { type EncryptionOptions, PdfEncryptor, REVISIONS, type Revision } from './pdf-encrypt.js';

const bytes = (hex: string) => Buffer.from(hex, 'hex');

/** An XMP packet naming `creators` in `dc:creator` and `title` in `dc:title`. */
function xmp(creators: string[], title: string): Buffer {
  const items = creators.map((name) => `<rdf:li>${name}</rdf:li>`).join('');
  return Buffer.from(
    `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq>${items}</rdf:Seq></dc:creator><dc:title><rdf:Alt><rdf:li xml:lang="x-default">${title}</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`,
    'utf8',
  );
}

/**
 * An encrypted PDF: catalog (1), pages (2), Info (3) with `/Author` and `/Title`, and an XMP stream (4)
 * naming `creators`; `infoAuthor` undefined leaves `/Author` out.
 */
function encryptedFile(
  revision: Revision,
  infoAuthor: string | undefined,
  creators: string[],
  options: EncryptionOptions = {},
): Buffer {
  const e = new PdfEncryptor(revision, options);
  const author = infoAuthor === undefined ? '' : `/Author ${e.string(infoAuthor, 3)} `;
  const encryptMetadata = options.encryptMetadata ?? true;
  return hostile.encryptedPdf(
    e,
    [
      '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
      '<< /Type /Pages /Kids [] /Count 0 >>',
      `<< ${author}/Title ${e.string(`Titel ${revision}`, 3)} >>`,
      e.stream(4, '/Type /Metadata /Subtype /XML', xmp(creators, `XMP ${revision}`), true, encryptMetadata),
    ],
    '/Size 6 /Root 1 0 R /Info 3 0 R',
  );
}

/** `block` (whole AES blocks) encrypted under `key` with a zero IV and no padding added. */
function unpadded(key: Uint8Array, block: Uint8Array): Buffer {
  const cipher = createCipheriv('aes-128-cbc', key, Buffer.alloc(16));
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(block), cipher.final()]);
}

/** The `INVALID_FORMAT` refusal reading `file` throws (the test fails when it is read instead). */
function refusal(file: Uint8Array): ApiError {
  try {
    readPdfMetadata(file);
  } catch (error) {
    if (asApiError(error) instanceof ApiError) return asApiError(error) as ApiError;
    throw error;
  }
  throw new Error('the file was read, not refused');
}

describe('standard security handler: known-answer vectors (files `qpdf --encrypt "" owner <bits>` wrote)', () => {
  // `/O`, `/U`, `/P`, `/ID` of qpdf 11.3's files, and the key `qpdf --show-encryption-key` prints for them.
  const legacy = [
    {
      revision: 2,
      keyBytes: 5,
      owner: 'c92422687facee686e373f10b5c7d04738053152f7e2ee30e11c69ec442576ab',
      user: '69ccfb47b81b11baefd83d3627496f5ae1038c0ec161440035a18586940ec29f',
      id: '2d73919d32721bd217fcb928a7cc1e3b',
      key: '88f5191c03',
    },
    {
      revision: 3,
      keyBytes: 16,
      owner: '566fa873ee33c797cd3b904fdadf814afa34df9a38f6ed41b984e2c6da2aa6f5',
      user: 'db83e2be75e21ac61e42e90b29ff90060122456a91bae5134273a6db134c87c4',
      id: 'a276667c0b73b9b96c649df04e6a7fc6',
      key: 'c8c6e459498fd89727184e7f5efdb118',
    },
    {
      revision: 4,
      keyBytes: 16,
      owner: '566fa873ee33c797cd3b904fdadf814afa34df9a38f6ed41b984e2c6da2aa6f5',
      user: 'd59c423c1813abba28b0d3d2da587f360122456a91bae5134273a6db134c87c4',
      id: 'f7dde08a07fc7995763727f2272cf0cb',
      key: '970396566a98ef3a2b6662ddb3830d34',
    },
  ] as const;
  for (const vector of legacy) {
    it(`revision ${vector.revision}: the empty password's key, and none when /U does not match`, () => {
      const input = {
        revision: vector.revision,
        keyBytes: vector.keyBytes,
        owner: bytes(vector.owner),
        user: bytes(vector.user),
        permissions: -4,
        id: bytes(vector.id),
        encryptMetadata: true,
      };
      expect(legacyFileKey(input)?.toString('hex')).toBe(vector.key);
      const wrong = bytes(vector.user);
      wrong[3] = (wrong[3] as number) ^ 1;
      expect(legacyFileKey({ ...input, user: wrong })).toBeUndefined();
      expect(legacyFileKey({ ...input, permissions: -3 })).toBeUndefined();
    });
  }
  const aes = [
    {
      revision: 5,
      user: '702b68a3d44135ac0e4b93a2293855b335fffbd27c7e392b3be8da3429962bef023762b6fbafb06b65bb1ff5d953a005',
      userKey: '1445f491cfc8f9087dd7666e4152ba038c27695544891b8ecf3152309fb6019d',
      key: 'c52d5f4a706d18e5d8267d308a1d1ccce41afc5ab2c85c6933799e0e5a938cb0',
    },
    {
      revision: 6,
      user: 'e4f26c3b4af3afa8fbdaf8b71374b1bafbf64ce2188e2df674286ab3e4996effbbae11aa716e036267085146a6b76db3',
      userKey: '9efc0dcd1f5fc3b37b963d85b5c1e788adac23056c45ae9311b24bc47bdddd55',
      key: 'cf85b8d74d2f7bd46a3bf62737e2b029c982822c4e5ca6144fbc6363b7fe7b41',
    },
  ] as const;
  for (const vector of aes) {
    it(`revision ${vector.revision}: the empty password's key (SHA-256${vector.revision === 6 ? ', algorithm 2.B' : ''}), none for another /U`, () => {
      const input = { revision: vector.revision, user: bytes(vector.user), userKey: bytes(vector.userKey) };
      expect(aesFileKey(input)?.toString('hex')).toBe(vector.key);
      const wrong = bytes(vector.user);
      wrong[0] = (wrong[0] as number) ^ 1;
      expect(aesFileKey({ ...input, user: wrong })).toBeUndefined();
    });
  }

  it('RC4 matches the published test vectors', () => {
    const hex = (key: string, text: string) =>
      Buffer.from(rc4(Buffer.from(key), Buffer.from(text))).toString('hex');
    expect(hex('Key', 'Plaintext')).toBe('bbf316e8d940af0ad3');
    expect(hex('Wiki', 'pedia')).toBe('1021bf0420');
    expect(hex('Secret', 'Attack at dawn')).toBe('45a01f645fc35b383552544b9bf5');
  });

  it('AES data that is not IV + whole blocks with PKCS#5 padding is refused, an IV alone is empty', () => {
    const key = Buffer.alloc(16, 7);
    expect(aesDecrypt(key, Buffer.alloc(16))).toEqual(new Uint8Array(0));
    expect(aesDecrypt(key, Buffer.alloc(40))).toBeUndefined();
    expect(aesDecrypt(key, Buffer.alloc(8))).toBeUndefined();
    // One whole block whose last byte is 0 (no valid padding), and one ending in 17.
    for (const last of [0, 17]) {
      const block = Buffer.alloc(16, 3);
      block[15] = last;
      expect(aesDecrypt(key, Buffer.concat([Buffer.alloc(16), unpadded(key, block)]))).toBeUndefined();
    }
    expect(
      Buffer.from(
        aesDecrypt(
          key,
          Buffer.concat([Buffer.alloc(16), unpadded(key, Buffer.from('fifteen bytes!!\x01'))]),
        ) ?? [],
      ).toString(),
    ).toBe('fifteen bytes!!');
  });
});

describe('encrypted PDFs with an empty user password are read as a reader opens them', () => {
  for (const revision of REVISIONS) {
    it(`${revision}: Info strings (accented, CJK) and the XMP stream are decrypted`, () => {
      const info = readPdfMetadata(encryptedFile(revision, 'Björn Ødegård; 李小龙', ['Nur XMP']));
      expect(info).toMatchObject({
        authors: ['Björn Ødegård', '李小龙'],
        authorSource: 'pdf:Author',
        title: `Titel ${revision}`,
      });
      // An empty `/Author ()` (LaTeX's default) does not hide the decrypted XMP creators.
      const fromXmp = readPdfMetadata(encryptedFile(revision, '', ['Ana Lima', 'Zoë Ørsted']));
      expect(fromXmp).toMatchObject({ authors: ['Ana Lima', 'Zoë Ørsted'], authorSource: 'xmp:dc:creator' });
    });

    it(`${revision}: a file that needs a user password is refused, saying so`, () => {
      const error = refusal(encryptedFile(revision, 'Ana Lima', [], { userPassword: 'geheim' }));
      expect(error.code).toBe('INVALID_FORMAT');
      expect(error.message).toMatch(/^This PDF is protected by a password: .*upload that$/);
    });
  }

  for (const revision of ['R4-RC4', 'R4-AES', 'R5', 'R6'] as const) {
    it(`${revision}: /EncryptMetadata false leaves the XMP stream in clear (and changes the R4 key)`, () => {
      const file = encryptedFile(revision, undefined, ['Klara Text'], { encryptMetadata: false });
      expect(file.includes('Klara Text')).toBe(true);
      expect(readPdfMetadata(file)).toMatchObject({ authors: ['Klara Text'], title: `Titel ${revision}` });
    });
  }

  it('/EncryptMetadata false leaves the catalog’s XMP stream in clear even without `/Type /Metadata`', () => {
    const e = new PdfEncryptor('R4-AES', { encryptMetadata: false });
    const file = hostile.encryptedPdf(
      e,
      [
        '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
        '<< /Type /Pages /Kids [] /Count 0 >>',
        `<< /Author ${e.string('', 3)} >>`,
        e.stream(4, '/Subtype /XML', xmp(['Ohne Typ'], 'Klar'), false, false),
      ],
      '/Size 6 /Root 1 0 R /Info 3 0 R',
    );
    expect(readPdfMetadata(file)).toMatchObject({ authors: ['Ohne Typ'], authorSource: 'xmp:dc:creator' });
  });

  it('reads strings in an encrypted object stream (not encrypted one by one) and a referenced string object', () => {
    const e = new PdfEncryptor('R6');
    const header = '10 0 ';
    const content = Buffer.from(`${header}<< /Author 4 0 R /Title (Im Objektstrom) >>`, 'latin1');
    const file = hostile.encryptedPdf(
      e,
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [] /Count 0 >>',
        e.stream(3, `/Type /ObjStm /N 1 /First ${header.length}`, content),
        e.string('Otto Objekt', 4),
      ],
      '/Size 6 /Root 1 0 R /Info 10 0 R',
    );
    expect(readPdfMetadata(file)).toMatchObject({
      authors: ['Otto Objekt'],
      authorSource: 'pdf:Author',
      title: 'Im Objektstrom',
    });
  });

  it('honours a stream’s own crypt filter (`/Crypt` with `/Name /Identity`) and `/StrF /Identity`', () => {
    const e = new PdfEncryptor('R4-AES', { stringFilter: '/Identity' });
    const packet = xmp(['Ida Identity'], 'Klar');
    const file = hostile.encryptedPdf(
      e,
      [
        '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
        '<< /Type /Pages /Kids [] /Count 0 >>',
        '<< /Author () /Title (Klartext) >>',
        Buffer.concat([
          Buffer.from(
            `<< /Type /Metadata /Subtype /XML /Filter [/Crypt] /DecodeParms [<< /Name /Identity >>] /Length ${packet.length} >>\nstream\n`,
          ),
          packet,
          Buffer.from('\nendstream'),
        ]),
      ],
      '/Size 6 /Root 1 0 R /Info 3 0 R',
    );
    expect(readPdfMetadata(file)).toMatchObject({ authors: ['Ida Identity'], title: 'Klartext' });
  });

  it('skips a damaged AES string (not whole blocks, bad padding) and reads the author from XMP', () => {
    const e = new PdfEncryptor('R4-AES');
    const broken = e.encrypt(Buffer.from('Kaputt'), 3);
    const block = Buffer.alloc(16, 0x41);
    block[15] = 0; // no valid padding
    const badPadding = Buffer.concat([Buffer.alloc(16), unpadded(objectKey(e.fileKey, 3, 0, true), block)]);
    const file = hostile.encryptedPdf(
      e,
      [
        '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
        '<< /Type /Pages /Kids [] /Count 0 >>',
        `<< /Author <${Buffer.concat([broken, Buffer.alloc(8)]).toString('hex')}> /Title <${badPadding.toString('hex')}> >>`,
        e.stream(4, '/Type /Metadata /Subtype /XML', xmp(['Xaver XMP'], 'Ersatz')),
      ],
      '/Size 6 /Root 1 0 R /Info 3 0 R',
    );
    expect(readPdfMetadata(file)).toMatchObject({ authors: ['Xaver XMP'], title: 'Ersatz' });
  });
});

describe('encrypted PDFs that cannot be read are refused with a reason', () => {
  const cases: Array<[string, EncryptionOptions & { revision?: Revision }, RegExp]> = [
    [
      'a public-key handler',
      { override: ' /Filter /Adobe.PubSec' },
      /the `\/Adobe\.PubSec` security handler/,
    ],
    ['an unpublished algorithm', { override: ' /V 3' }, /algorithm `\/V 3`/],
    ['an unknown revision', { override: ' /R 7' }, /revision `\/R 7`/],
    [
      'an unknown crypt filter method',
      { revision: 'R6', override: ' /CF << /StdCF << /CFM /AESV4 >> >>' },
      /`\/AESV4`/,
    ],
    [
      'a key length of 4096 bits',
      { revision: 'R3', override: ' /Length 4096' },
      /key length `\/Length 4096`/,
    ],
    [
      'a /U of 10 bytes',
      { revision: 'R3', override: ' /U <00112233445566778899>' },
      /`\/O` or `\/U` is shorter/,
    ],
    ['a /U that is a number', { revision: 'R6', override: ' /U 12' }, /`\/U` is not a string/],
    [
      'an undefined string filter',
      { revision: 'R4-AES', override: ' /StrF /Nope' },
      /`\/Nope` is not defined/,
    ],
  ];
  for (const [what, options, message] of cases) {
    it(`${what}`, () => {
      const error = refusal(encryptedFile(options.revision ?? 'R4-RC4', 'Ana Lima', [], options));
      expect(error.code).toBe('INVALID_FORMAT');
      expect(error.message).toMatch(message);
    });
  }

  it('an /Encrypt that names no object', () => {
    const file = hostile.pdfWithObjects(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [] /Count 0 >>',
        '<< /Author (Ana Lima) >>',
      ],
      '<< /Size 4 /Root 1 0 R /Info 3 0 R /Encrypt 99 0 R >>',
    );
    expect(refusal(file).message).toMatch(/encryption dictionary is missing/);
  });
});

describe('hostile encrypted PDFs end in 422 naming the bound that was hit', () => {
  const limitOf = (file: hostile.HostileFile) => {
    try {
      analyzeFile(file.bytes, file.name);
    } catch (error) {
      if (asApiError(error) instanceof ApiError) return (asApiError(error) as ApiError).extra.limit;
      throw error;
    }
    throw new Error(`${file.name} was read`);
  };

  it('an encrypted XMP deflate bomb the author has to come from: `xmp_bytes`', () => {
    const bomb = hostile.pdfEncryptedXmpBomb();
    expect(bomb.bytes.length).toBeLessThan(128 * 1024);
    expect(limitOf(bomb)).toBe('xmp_bytes');
  });

  it('encrypted object streams inflating past the file budget: `pdf_inflated_bytes`', () => {
    expect(limitOf(hostile.pdfEncryptedObjectStreamBombs(5))).toBe('pdf_inflated_bytes');
  });

  it('encrypted streams past the decryption budget: `pdf_decrypted_bytes`, and below it they are read', () => {
    const budget = ANALYSIS_LIMITS.pdf_decrypted_bytes / (1024 * 1024);
    expect(limitOf(hostile.pdfEncryptedStreamsPastDecryptBudget(budget + 1))).toBe('pdf_decrypted_bytes');
    const below = hostile.pdfEncryptedStreamsPastDecryptBudget(budget - 2);
    expect(analyzeFile(below.bytes, below.name).authors).toEqual([]);
  });

  it('mutated encrypted files of every revision only ever fail as a 4xx ApiError', () => {
    for (const revision of REVISIONS) {
      const original = encryptedFile(revision, '', ['Mara Mutant']);
      for (let round = 0; round < 150; round++) {
        const mutated = Buffer.from(original);
        for (let flip = 0; flip <= round % 6; flip++) {
          mutated[(round * 7919 + flip * 104_729) % mutated.length] = (round * 31 + flip) & 0xff;
        }
        try {
          analyzeFile(
            round % 5 === 0 ? mutated.subarray(0, (round * 37) % mutated.length) : mutated,
            'm.pdf',
          );
        } catch (error) {
          expect(asApiError(error), `${revision} round ${round}: ${(error as Error).stack}`).toBeInstanceOf(
            ApiError,
          );
          expect((asApiError(error) as ApiError).status).toBeLessThan(500);
        }
      }
    }
  });
});
