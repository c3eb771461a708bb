// Generators of hostile uploads, one per class the hardening issue (10) found, each rebuilt byte by byte.
// Shared by the unit suite (`hostile-input.test.ts`) and the real-process suite (`test/server/`), so both
// exercise the very same files. Every generator is deterministic and cheap (well under a second).
import { deflateSync } from 'node:zlib';
import { pngChunk } from '../fixtures/png-chunk.mjs';
import { ANALYSIS_LIMITS } from '../src/metadata/limits.js';
import { PdfEncryptor } from './pdf-encrypt.js';

const XMP_AUTHOR =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>Hostile Tester</rdf:li>' +
  '</rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>';

/** A hostile upload: its name, its bytes, and what the issue measured it doing before the fix. */
export interface HostileFile {
  name: string;
  bytes: Buffer;
  /** The symptom before the fix, as issue 10 reports it (for test names). */
  symptom: string;
}

/**
 * A PDF of `objects` (numbered from 1, each `N 0 obj … endobj`) with a correct classic xref table and
 * `trailer`. An object given as a Buffer is written as is (for binary streams).
 */
export function pdfWithObjects(objects: Array<string | Buffer>, trailer: string): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const part = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      typeof object === 'string' ? Buffer.from(object, 'latin1') : object,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    length += part.length;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) tail += `${String(offset).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n${trailer}\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(parts);
}

/** A stream object (dictionary + FlateDecode'd `data`) as {@link pdfWithObjects} takes it. */
function flateStream(dictionary: string, data: Buffer): Buffer {
  const compressed = deflateSync(data, { level: 9 });
  return Buffer.concat([
    Buffer.from(`<< ${dictionary} /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`, 'latin1'),
    compressed,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/**
 * Issue 10: "one compressed object stream whose 3 000 entries all point at one 4 MiB string" (12 KB; it
 * froze the server for over 6 minutes while it grew to 10 GB), and its 2 KB variant (12.9 s). The trailer's
 * `/Info` is one of those entries, so reading the metadata has to look into the stream.
 */
export function pdfObjectStreamBomb(entries = 3000, stringBytes = 4 * 1024 * 1024): HostileFile {
  let header = '';
  for (let i = 0; i < entries; i++) header += `${10 + i} 0 `;
  const content = Buffer.concat([
    Buffer.from(header, 'latin1'),
    Buffer.from('(', 'latin1'),
    Buffer.alloc(stringBytes, 0x61),
    Buffer.from(')', 'latin1'),
  ]);
  const bytes = pdfWithObjects(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [] /Count 0 >>',
      flateStream(`/Type /ObjStm /N ${entries} /First ${header.length}`, content),
    ],
    '<< /Size 4 /Root 1 0 R /Info 10 0 R >>',
  );
  return {
    name: `objstm-${entries}-entries.pdf`,
    bytes,
    symptom: `${Math.round(bytes.length / 1024)} KB PDF, ${entries} object-stream entries → one ${stringBytes >> 20} MiB string`,
  };
}

/**
 * Issue 10: "a PDF with 60 000 objects lacking `endstream`" (36 s): every object claims to be an object
 * stream, none ends, and `/Info` names an object that is nowhere, so a reader looks through all of them.
 */
export function pdfWithoutEndstream(objects = 60_000): HostileFile {
  let body = '%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n';
  const parts = [body];
  for (let i = 3; i < objects + 3; i++) {
    parts.push(`${i} 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Length 100000 >>\nstream\n9 0 (x)\n`);
  }
  body = parts.join('');
  const trailer = `trailer\n<< /Size ${objects + 3} /Root 1 0 R /Info 999999 0 R >>\nstartxref\n0\n%%EOF\n`;
  return {
    name: `no-endstream-${objects}.pdf`,
    bytes: Buffer.from(body + trailer, 'latin1'),
    symptom: `${objects} objects lacking endstream`,
  };
}

/** Issue 10: "a Markdown line `# a` + 100 000 spaces + `b`" (51 s in the title regex). */
export function markdownSpacedHeading(spaces = 100_000): HostileFile {
  return {
    name: 'spaced-heading.md',
    bytes: Buffer.from(`# a${' '.repeat(spaces)}b\n`, 'utf8'),
    symptom: `Markdown \`# a\` + ${spaces} spaces + \`b\``,
  };
}

/** A minimal GIF around `blocks` (extensions between the screen descriptor and the one 1×1 image). */
function gifAround(blocks: Buffer[]): Buffer {
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    Buffer.from([1, 0, 1, 0, 0x80, 0, 0]), // 1×1, a global colour table of 2 entries
    Buffer.from([0, 0, 0, 255, 255, 255]),
    ...blocks,
    Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0]), // image descriptor
    Buffer.from([2, 2, 0x4c, 0x01, 0]), // LZW minimum code size 2, one sub-block, terminator
    Buffer.from([0x3b]),
  ]);
}

/** A GIF `XMP DataXMP` application extension holding `packet`, with XMP's 258-byte magic trailer. */
export function gifXmpExtension(packet: string): Buffer {
  const trailer = Buffer.alloc(258);
  trailer[0] = 0x01;
  for (let i = 0; i < 256; i++) trailer[1 + i] = 0xff - i;
  trailer[257] = 0x00;
  return Buffer.concat([
    Buffer.from([0x21, 0xff, 11]),
    Buffer.from('XMP DataXMP', 'latin1'),
    Buffer.from(packet, 'utf8'),
    trailer,
  ]);
}

/**
 * Issue 10: "a GIF with 70 000 XMP extensions" (46 s): each one a `XMP DataXMP` extension with one short
 * data block and no magic trailer, so a reader that looks for the trailer from each one reads to the end.
 */
export function gifManyXmpExtensions(count = 70_000): HostileFile {
  const one = Buffer.concat([
    Buffer.from([0x21, 0xff, 11]),
    Buffer.from('XMP DataXMP', 'latin1'),
    Buffer.from([1, 0x78, 0]),
  ]);
  return {
    name: `xmp-extensions-${count}.gif`,
    bytes: gifAround(Array.from({ length: count }, () => one)),
    symptom: `GIF with ${count} XMP extensions`,
  };
}

/** A GIF with `count` empty comment extensions (3 bytes each) before its image, and an author. */
export function gifManyBlocks(count: number): HostileFile {
  const comment = Buffer.from([0x21, 0xfe, 0]);
  return {
    name: `blocks-${count}.gif`,
    bytes: gifAround([gifXmpExtension(XMP_AUTHOR), ...Array.from({ length: count }, () => comment)]),
    symptom: `GIF with ${count} extension blocks`,
  };
}

/** A 1×1 PNG with an author and `count` empty `tEXt`-like ancillary chunks (`zzZz`, 12 bytes each). */
export function pngManyChunks(count: number): HostileFile {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  const spare = pngChunk('zzZz', Buffer.alloc(0));
  return {
    name: `chunks-${count}.png`,
    bytes: Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', ihdr),
      pngChunk('iTXt', Buffer.from(`XML:com.adobe.xmp\0\0\0\0\0${XMP_AUTHOR}`, 'utf8')),
      ...Array.from({ length: count }, () => spare),
      pngChunk('IDAT', deflateSync(Buffer.from([0, 0]))),
      pngChunk('IEND', Buffer.alloc(0)),
    ]),
    symptom: `PNG with ${count} chunks`,
  };
}

/** A lossless 1×1 WebP with an author and `count` empty unknown chunks (8 bytes each). */
export function webpManyChunks(count: number): HostileFile {
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'latin1');
    head.writeUInt32LE(body.length, 4);
    return Buffer.concat([head, body, body.length % 2 === 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const vp8l = Buffer.from([0x2f, 0, 0, 0, 0, 0x88, 0x88, 0x08]);
  const chunks = Buffer.concat([
    chunk('VP8L', vp8l),
    chunk('XMP ', Buffer.from(XMP_AUTHOR, 'utf8')),
    ...Array.from({ length: count }, () => chunk('zzzz', Buffer.alloc(0))),
  ]);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(4 + chunks.length, 4);
  head.write('WEBP', 8, 'latin1');
  return {
    name: `chunks-${count}.webp`,
    bytes: Buffer.concat([head, chunks]),
    symptom: `WebP with ${count} chunks`,
  };
}

/** A JPEG (an author's XMP in APP1, a frame header, an empty scan) with `count` empty APP15 segments. */
export function jpegManySegments(count: number): HostileFile {
  const segment = (marker: number, body: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([head, body]);
  };
  return {
    name: `segments-${count}.jpg`,
    bytes: Buffer.concat([
      Buffer.from([0xff, 0xd8]),
      segment(0xe1, Buffer.from(`http://ns.adobe.com/xap/1.0/\0${XMP_AUTHOR}`, 'utf8')),
      ...Array.from({ length: count }, () => segment(0xef, Buffer.alloc(0))),
      segment(0xc0, Buffer.from([8, 0, 1, 0, 1, 1, 1, 0x11, 0])),
      segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
      Buffer.from([0x00, 0xff, 0xd9]),
    ]),
    symptom: `JPEG with ${count} segments`,
  };
}

/** A Markdown file whose frontmatter (`author:` first) is followed by `yaml`, within the size limit. */
export function markdownFrontmatter(name: string, yaml: string): HostileFile {
  return {
    name,
    bytes: Buffer.from(`---\nauthor: Hostile Tester\n${yaml}\n---\n# Title\n`, 'utf8'),
    symptom: `frontmatter ${name}`,
  };
}

/** A PNG whose XMP packet is `packet` (uncompressed `iTXt`). */
export function pngWithXmp(name: string, packet: string): HostileFile {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  return {
    name,
    bytes: Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', ihdr),
      pngChunk('iTXt', Buffer.from(`XML:com.adobe.xmp\0\0\0\0\0${packet}`, 'utf8')),
      pngChunk('IDAT', deflateSync(Buffer.from([0, 0]))),
      pngChunk('IEND', Buffer.alloc(0)),
    ]),
    symptom: `XMP ${name}`,
  };
}

/** An XMP packet with `count` namespace declarations on its root, then `count` elements each adding one. */
export function xmpNamespaceFlood(count: number): string {
  let declarations = '';
  for (let i = 0; i < count; i++) declarations += ` xmlns:n${i}="urn:n${i}"`;
  let children = '';
  for (let i = 0; i < count; i++) children += `<m${i}:e xmlns:m${i}="urn:m${i}"/>`;
  return `<x:xmpmeta xmlns:x="adobe:ns:meta/"${declarations}><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">${children}</rdf:RDF></x:xmpmeta>`;
}

/** A PDF whose `/Author`, `/Title` and `/Subject` all name one object: a literal string of `bytes` bytes. */
export function pdfSharedHugeString(bytes: number): HostileFile {
  return {
    name: 'shared-huge-string.pdf',
    bytes: pdfWithObjects(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [] /Count 0 >>',
        '<< /Author 4 0 R /Title 4 0 R /Subject 4 0 R /Keywords 4 0 R >>',
        `(${'a'.repeat(bytes)})`,
      ],
      '<< /Size 5 /Root 1 0 R /Info 3 0 R >>',
    ),
    symptom: `PDF whose metadata names one ${bytes >> 20} MiB string thrice`,
  };
}

/**
 * A PDF with `streams` object streams, each a deflate bomb of `inflated` bytes, and an `/Info` that names
 * an object that is in none of them (so a reader without a cross-reference stream inflates them all).
 */
export function pdfObjectStreamZipBombs(streams: number, inflated = 16 * 1024 * 1024): HostileFile {
  const bomb = flateStream(
    '/Type /ObjStm /N 1 /First 4',
    Buffer.concat([Buffer.from('9 0 ', 'latin1'), Buffer.alloc(inflated - 4, 0x20)]),
  );
  return {
    name: `objstm-bombs-${streams}.pdf`,
    bytes: pdfWithObjects(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [] /Count 0 >>',
        ...Array.from({ length: streams }, () => bomb),
      ],
      `<< /Size ${streams + 3} /Root 1 0 R /Info 999999 0 R >>`,
    ),
    symptom: `PDF with ${streams} object streams inflating to ${inflated >> 20} MiB each`,
  };
}

/** A PDF whose incremental-update chain (`/Prev`) loops: each trailer points at the other. */
export function pdfPrevLoop(): HostileFile {
  const head = '%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n';
  const first = head.length;
  const a = `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 2 /Prev ${first + 1000} >>\n`;
  const padding = ' '.repeat(1000 - a.length);
  const b = `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 2 /Prev ${first} >>\n`;
  const body = `${head}${a}${padding}${b}startxref\n${first + 1000}\n%%EOF\n`;
  return {
    name: 'prev-loop.pdf',
    bytes: Buffer.from(body, 'latin1'),
    symptom: 'PDF whose /Prev chain loops',
  };
}

/** A PDF with `objects` tiny direct objects (`N 0 obj null endobj`). */
export function pdfManyObjects(objects: number): HostileFile {
  const parts: string[] = ['%PDF-1.7\n'];
  for (let i = 1; i <= objects; i++) parts.push(`${i} 0 obj null endobj\n`);
  parts.push('trailer\n<< /Root 1 0 R >>\nstartxref\n0\n%%EOF\n');
  return {
    name: `objects-${objects}.pdf`,
    bytes: Buffer.from(parts.join(''), 'latin1'),
    symptom: `PDF with ${objects} objects`,
  };
}

/**
 * A PDF whose `/Prev` chain visits 32 cross-reference sections nested inside one another's trailers: each
 * trailer holds a string that runs to the end of the file, so following the chain would walk the file 32
 * times (caught by `pdf_parse_factor`).
 */
export function pdfTrailerChainOverString(fillerBytes = 1024 * 1024): HostileFile {
  const hops = 32;
  const head = '%PDF-1.7\n';
  const section = (prev: number) => `xref\ntrailer\n<< /Prev ${String(prev).padStart(10, '0')} /K (`;
  const offset = (i: number) => head.length + (i % hops) * section(0).length;
  const sections = Array.from({ length: hops }, (_, i) => section(offset(i + 1))).join('');
  const text = `${head}${sections}${'a'.repeat(fillerBytes)}${')>>'.repeat(hops)}\nstartxref\n${offset(0)}\n%%EOF\n`;
  return {
    name: 'trailer-chain.pdf',
    bytes: Buffer.from(text, 'latin1'),
    symptom: `PDF whose ${hops} trailers each hold a ${fillerBytes >> 20} MiB string`,
  };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A 1×1 PNG with `chunks` (each made by `pngChunk`) between its IHDR and its image data. */
export function pngAround(name: string, chunks: Buffer[]): HostileFile {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  return {
    name,
    bytes: Buffer.concat([
      PNG_SIGNATURE,
      pngChunk('IHDR', ihdr),
      ...chunks,
      pngChunk('IDAT', deflateSync(Buffer.from([0, 0]))),
      pngChunk('IEND', Buffer.alloc(0)),
    ]),
    symptom: `PNG ${name}`,
  };
}

/** A 1×1 JPEG with `segments` (`[marker, body]`) before its frame header, an empty scan and its end marker. */
export function jpegAround(name: string, segments: Array<[number, Buffer]>): HostileFile {
  const segment = (marker: number, body: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([head, body]);
  };
  return {
    name,
    bytes: Buffer.concat([
      Buffer.from([0xff, 0xd8]),
      ...segments.map(([marker, body]) => segment(marker, body)),
      segment(0xc0, Buffer.from([8, 0, 1, 0, 1, 1, 1, 0x11, 0])),
      segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
      Buffer.from([0x00, 0xff, 0xd9]),
    ]),
    symptom: `JPEG ${name}`,
  };
}

/**
 * A compressed-XMP bomb: a 1×1 PNG whose `zTXt` `XML:com.adobe.xmp` chunk is `inflated` bytes of spaces,
 * deflated (16 KB for 16 MiB). Read whole, it would cost `inflated` bytes and more as a string.
 */
export function pngCompressedXmpBomb(inflated = 16 * 1024 * 1024): HostileFile {
  const text = deflateSync(Buffer.alloc(inflated, 0x20), { level: 9 });
  return {
    ...pngAround(`xmp-bomb-${inflated}.png`, [
      pngChunk('zTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0', 'latin1'), text])),
    ]),
    symptom: `PNG whose zTXt XMP inflates to ${inflated} bytes`,
  };
}

/**
 * `count` compressed `Description` text chunks (`zTXt`), each inflating to `each` bytes of spaces: each one
 * within `image_text_bytes`, together past `image_inflated_bytes` when `count × each` is.
 */
export function pngCompressedTextBombs(count: number, each: number): HostileFile {
  const chunk = pngChunk(
    'zTXt',
    Buffer.concat([
      Buffer.from('Description\0\0', 'latin1'),
      deflateSync(Buffer.alloc(each, 0x20), { level: 9 }),
    ]),
  );
  return {
    ...pngAround(`text-bombs-${count}x${each}.png`, [
      pngChunk('iTXt', Buffer.from(`XML:com.adobe.xmp\0\0\0\0\0${XMP_AUTHOR}`, 'utf8')),
      ...Array.from({ length: count }, () => chunk),
    ]),
    symptom: `PNG with ${count} zTXt chunks of ${each} bytes each`,
  };
}

/**
 * Issue 25: Hugo's TOML frontmatter (`+++`) holding `bytes` of one string after its author: a real author,
 * past `frontmatter_bytes` when `bytes` is.
 */
export function tomlFrontmatterBomb(bytes: number): HostileFile {
  return {
    name: `toml-bomb-${bytes}.md`,
    bytes: Buffer.from(`+++\nauthor = "Hostile Tester"\nfiller = "${'x'.repeat(bytes)}"\n+++\n# Title\n`),
    symptom: `TOML frontmatter of ${bytes} bytes`,
  };
}

/**
 * Issue 25: Hugo's bare JSON frontmatter (`{` … `}`) holding `bytes` of one string after its author; Hugo's
 * lexer scans for the closing brace, which comes past `frontmatter_bytes` when `bytes` is.
 */
export function jsonFrontmatterBomb(bytes: number): HostileFile {
  return {
    name: `json-bomb-${bytes}.md`,
    bytes: Buffer.from(`{\n  "author": "Hostile Tester",\n  "filler": "${'x'.repeat(bytes)}"\n}\n# Title\n`),
    symptom: `JSON frontmatter of ${bytes} bytes`,
  };
}

/** Issue 25: JSON frontmatter whose `filler` nests `depth` arrays in each other (a few KB). */
export function jsonFrontmatterNested(depth: number): HostileFile {
  return {
    name: `json-nested-${depth}.md`,
    bytes: Buffer.from(
      `{\n  "author": "Hostile Tester",\n  "filler": ${'['.repeat(depth)}${']'.repeat(depth)}\n}\n`,
    ),
    symptom: `JSON frontmatter nested ${depth} deep`,
  };
}

/** Issue 25: TOML frontmatter whose `filler` nests `depth` arrays in each other (a few KB). */
export function tomlFrontmatterNested(depth: number): HostileFile {
  return {
    name: `toml-nested-${depth}.md`,
    bytes: Buffer.from(
      `+++\nauthor = "Hostile Tester"\nfiller = ${'['.repeat(depth)}${']'.repeat(depth)}\n+++\n`,
    ),
    symptom: `TOML frontmatter nested ${depth} deep`,
  };
}

/** Issue 25: a UTF-16LE text with its byte order mark and an author, cut one byte short (odd length). */
export function utf16OddLength(): HostileFile {
  const text = Buffer.from('---\nauthor: Hostile Tester\n---\n# Title\n', 'utf16le');
  return {
    name: 'utf16-odd.md',
    bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), text.subarray(0, text.length - 1)]),
    symptom: 'UTF-16 text of odd length',
  };
}

/**
 * A PDF of `objects` (numbered from 1) encrypted by `encryptor`: its encryption dictionary is the last
 * object, and the trailer (`entries` plus `/Encrypt` and `/ID`) names it.
 */
export function encryptedPdf(
  encryptor: PdfEncryptor,
  objects: Array<string | Buffer>,
  entries: string,
): Buffer {
  const id = `<${encryptor.id.toString('hex')}>`;
  return pdfWithObjects(
    [...objects, encryptor.dictionary],
    `<< ${entries} /Encrypt ${objects.length + 1} 0 R /ID [${id} ${id}] >>`,
  );
}

/**
 * A hostile encrypted PDF (AES-128, empty user password): its `/Author` is empty, so the author can only be
 * in the XMP stream, and that is an encrypted deflate bomb of `inflated` bytes (64 KB for 64 MiB).
 */
export function pdfEncryptedXmpBomb(inflated = 64 * 1024 * 1024): HostileFile {
  const encryptor = new PdfEncryptor('R4-AES');
  const bytes = encryptedPdf(
    encryptor,
    [
      '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
      '<< /Type /Pages /Kids [] /Count 0 >>',
      `<< /Author ${encryptor.string('', 3)} /Title ${encryptor.string('Bomb', 3)} >>`,
      encryptor.stream(4, '/Type /Metadata /Subtype /XML', Buffer.alloc(inflated, 0x20)),
    ],
    '/Size 6 /Root 1 0 R /Info 3 0 R',
  );
  return {
    name: 'encrypted-xmp-bomb.pdf',
    bytes,
    symptom: `encrypted PDF whose XMP inflates to ${inflated} bytes`,
  };
}

/**
 * A hostile encrypted PDF (RC4-128) of `streams` encrypted object streams, each a deflate bomb of `inflated`
 * bytes, and an `/Info` in none of them (so a reader decrypts and inflates them all).
 */
export function pdfEncryptedObjectStreamBombs(streams: number, inflated = 16 * 1024 * 1024): HostileFile {
  const encryptor = new PdfEncryptor('R3');
  const data = Buffer.concat([Buffer.from('9 0 ', 'latin1'), Buffer.alloc(inflated - 4, 0x20)]);
  const bytes = encryptedPdf(
    encryptor,
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [] /Count 0 >>',
      ...Array.from({ length: streams }, (_, i) =>
        encryptor.stream(i + 3, '/Type /ObjStm /N 1 /First 4', data),
      ),
    ],
    `/Size ${streams + 4} /Root 1 0 R /Info 999999 0 R`,
  );
  return {
    name: `encrypted-objstm-bombs-${streams}.pdf`,
    bytes,
    symptom: `encrypted PDF with ${streams} object-stream bombs`,
  };
}

/**
 * A hostile encrypted PDF (AES-128) of `streams` uncompressed encrypted object streams of `each` bytes and
 * an `/Info` in none of them: nothing inflates, but a reader would decrypt them all.
 */
export function pdfEncryptedStreamsPastDecryptBudget(streams: number, each = 1024 * 1024): HostileFile {
  const encryptor = new PdfEncryptor('R4-AES');
  const data = Buffer.concat([Buffer.from('9 0 ', 'latin1'), Buffer.alloc(each - 4, 0x20)]);
  const bytes = encryptedPdf(
    encryptor,
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [] /Count 0 >>',
      ...Array.from({ length: streams }, (_, i) =>
        encryptor.stream(i + 3, '/Type /ObjStm /N 1 /First 4', data, true),
      ),
    ],
    `/Size ${streams + 4} /Root 1 0 R /Info 999999 0 R`,
  );
  return {
    name: `encrypted-streams-${streams}.pdf`,
    bytes,
    symptom: `encrypted PDF with ${streams} raw encrypted object streams`,
  };
}

/** The five reproductions of the hostile-upload reports (each once took the server seconds to minutes). */
export function hostileReproductions(): HostileFile[] {
  return [
    pdfObjectStreamBomb(),
    pdfObjectStreamBomb(400, 1024 * 1024),
    markdownSpacedHeading(),
    gifManyXmpExtensions(),
    pdfWithoutEndstream(),
  ];
}

/**
 * One file of every hostile class, the reproductions first: what the burst test and
 * bench/server/hostile-uploads.mjs send at once.
 */
export function everyHostileClass(): HostileFile[] {
  return [
    ...hostileReproductions(),
    pdfObjectStreamZipBombs(5),
    pdfSharedHugeString(4 * 1024 * 1024),
    pdfTrailerChainOverString(),
    pdfPrevLoop(),
    pdfManyObjects(ANALYSIS_LIMITS.pdf_objects + 1),
    pdfEncryptedXmpBomb(),
    pdfEncryptedObjectStreamBombs(5),
    gifManyBlocks(ANALYSIS_LIMITS.image_blocks),
    pngManyChunks(ANALYSIS_LIMITS.image_blocks),
    webpManyChunks(ANALYSIS_LIMITS.image_blocks),
    jpegManySegments(ANALYSIS_LIMITS.image_blocks),
    pngWithXmp('namespaces.png', xmpNamespaceFlood(600)),
    markdownFrontmatter('nested.md', `k: ${'['.repeat(20_000)}${']'.repeat(20_000)}`),
  ];
}
