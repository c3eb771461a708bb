// A JPEG laid out as Adobe Photoshop saves one (issue 10: "a real Photoshop JPEG is refused because its XMP
// packet is followed by a NUL byte"), built from the image data of a committed fixture: JFIF, Exif naming
// Photoshop, the Photoshop 3.0 resource block (IPTC inside), Photoshop's XMP packet — its namespaces, its
// edit history, 2 KB of padding, `<?xpacket end="w"?>`, then the NUL byte Photoshop writes after it — and
// the Adobe APP14 segment, then the fixture's own tables, frame and scan.

/** The XMP packet as Photoshop writes it (authors and title as given), without the NUL that follows it. */
export function photoshopXmp(authors: string[], title: string): string {
  const creators = authors.map((name) => `     <rdf:li>${name}</rdf:li>\n`).join('');
  const padding = `${' '.repeat(99)}\n`.repeat(20);
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 9.1-c002 79.f354efc, 2023/11/09-12:05:53        ">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
    xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
    xmlns:stEvt="http://ns.adobe.com/xap/1.0/sType/ResourceEvent#"
   xmp:CreatorTool="Adobe Photoshop 25.5 (Windows)"
   xmp:CreateDate="2026-03-02T10:14:07+01:00"
   xmp:ModifyDate="2026-03-02T10:21:44+01:00"
   xmp:MetadataDate="2026-03-02T10:21:44+01:00"
   dc:format="image/jpeg"
   photoshop:ColorMode="3"
   photoshop:ICCProfile="sRGB IEC61966-2.1"
   xmpMM:InstanceID="xmp.iid:5b0c2f4e-8a1d-4c44-9d1e-0f3b7a9e2c11"
   xmpMM:DocumentID="adobe:docid:photoshop:1e7d8c3a-2b4f-11ef-9a3c-c1f0e5d2b7a4"
   xmpMM:OriginalDocumentID="xmp.did:9f2a6b1c-3d4e-4f5a-8b6c-7d8e9f0a1b2c">
   <dc:creator>
    <rdf:Seq>
${creators}    </rdf:Seq>
   </dc:creator>
   <dc:title>
    <rdf:Alt>
     <rdf:li xml:lang="x-default">${title}</rdf:li>
    </rdf:Alt>
   </dc:title>
   <xmpMM:History>
    <rdf:Seq>
     <rdf:li
      stEvt:action="created"
      stEvt:instanceID="xmp.iid:9f2a6b1c-3d4e-4f5a-8b6c-7d8e9f0a1b2c"
      stEvt:when="2026-03-02T10:14:07+01:00"
      stEvt:softwareAgent="Adobe Photoshop 25.5 (Windows)"/>
     <rdf:li
      stEvt:action="saved"
      stEvt:instanceID="xmp.iid:5b0c2f4e-8a1d-4c44-9d1e-0f3b7a9e2c11"
      stEvt:when="2026-03-02T10:21:44+01:00"
      stEvt:softwareAgent="Adobe Photoshop 25.5 (Windows)"
      stEvt:changed="/"/>
    </rdf:Seq>
   </xmpMM:History>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
${padding}<?xpacket end="w"?>`;
}

function segment(marker: number, body: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}

/** One IFD entry: ASCII text, a SHORT, or a RATIONAL (numerator/denominator). */
type IfdValue = { ascii: string } | { short: number } | { rational: [number, number] };

/** A big-endian TIFF/Exif block with one IFD (Photoshop's resolution, software and date tags). */
function exifBlock(entries: Array<[tag: number, value: IfdValue]>): Buffer {
  const ifdSize = 2 + entries.length * 12 + 4;
  const values: Buffer[] = [];
  let valueOffset = 8 + ifdSize;
  const ifd = Buffer.alloc(ifdSize);
  ifd.writeUInt16BE(entries.length, 0);
  entries.forEach(([tag, value], index) => {
    const at = 2 + index * 12;
    ifd.writeUInt16BE(tag, at);
    if ('short' in value) {
      ifd.writeUInt16BE(3, at + 2);
      ifd.writeUInt32BE(1, at + 4);
      ifd.writeUInt16BE(value.short, at + 8);
      return;
    }
    let data: Buffer;
    if ('ascii' in value) {
      ifd.writeUInt16BE(2, at + 2);
      data = Buffer.from(`${value.ascii}\0`, 'latin1');
      ifd.writeUInt32BE(data.length, at + 4);
    } else {
      ifd.writeUInt16BE(5, at + 2);
      data = Buffer.alloc(8);
      data.writeUInt32BE(value.rational[0], 0);
      data.writeUInt32BE(value.rational[1], 4);
      ifd.writeUInt32BE(1, at + 4);
    }
    ifd.writeUInt32BE(valueOffset, at + 8);
    const padded = data.length % 2 === 1 ? Buffer.concat([data, Buffer.alloc(1)]) : data;
    values.push(padded);
    valueOffset += padded.length;
  });
  const header = Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]);
  return Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), header, ifd, ...values]);
}

/** An 8BIM image resource (Photoshop 3.0 APP13): id, empty Pascal name, size, data (padded to even). */
function imageResource(id: number, data: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.write('8BIM', 0, 'latin1');
  head.writeUInt16BE(id, 4);
  head.writeUInt32BE(data.length, 8); // bytes 6–7: empty name, padded
  return Buffer.concat([head, data, data.length % 2 === 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** IPTC-IIM datasets (record 2): `[dataset, UTF-8 text]`, after the coded character set (ESC % G). */
function iptc(datasets: Array<[number, string]>): Buffer {
  const one = (record: number, dataset: number, value: Buffer) => {
    const head = Buffer.from([0x1c, record, dataset, 0, 0]);
    head.writeUInt16BE(value.length, 3);
    return Buffer.concat([head, value]);
  };
  return Buffer.concat([
    one(1, 90, Buffer.from([0x1b, 0x25, 0x47])),
    one(2, 0, Buffer.from([0, 4])),
    ...datasets.map(([dataset, text]) => one(2, dataset, Buffer.from(text, 'utf8'))),
  ]);
}

/**
 * The Photoshop-style JPEG: `source`'s quantization and Huffman tables, frame and scan (its own APPn
 * segments dropped), behind Photoshop's segments, naming `authors` and `title` in XMP (and IPTC).
 */
export function photoshopJpeg(source: Buffer, authors: string[], title: string): Buffer {
  const kept: Buffer[] = [];
  let offset = 2;
  while (offset < source.length) {
    const marker = source[offset + 1] as number;
    const length = source.readUInt16BE(offset + 2);
    if (marker === 0xda) {
      kept.push(source.subarray(offset)); // the scan to the end of the image
      break;
    }
    if (marker < 0xe0 || marker > 0xef) kept.push(source.subarray(offset, offset + 2 + length));
    offset += 2 + length;
  }
  const resources = Buffer.concat([
    imageResource(0x0404, iptc([...authors.map((name) => [80, name] as [number, string]), [5, title]])),
    imageResource(0x03ed, Buffer.from([0, 0x48, 0, 0, 0, 1, 0, 1, 0, 0x48, 0, 0, 0, 1, 0, 1])),
  ]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 2, 1, 0, 0x48, 0, 0x48, 0, 0])),
    segment(
      0xe1,
      exifBlock([
        [0x011a, { rational: [720000, 10000] }],
        [0x011b, { rational: [720000, 10000] }],
        [0x0128, { short: 2 }],
        [0x0131, { ascii: 'Adobe Photoshop 25.5 (Windows)' }],
        [0x0132, { ascii: '2026:03:02 10:21:44' }],
        [0x0213, { short: 1 }],
      ]),
    ),
    segment(0xed, Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resources])),
    segment(
      0xe1,
      Buffer.concat([
        Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1'),
        Buffer.from(photoshopXmp(authors, title), 'utf8'),
        Buffer.from([0]), // what Photoshop writes after the packet's end
      ]),
    ),
    segment(0xee, Buffer.from([0x41, 0x64, 0x6f, 0x62, 0x65, 0, 0x64, 0, 0, 0, 0, 1])),
    ...kept,
  ]);
}
