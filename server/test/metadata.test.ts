import { describe, expect, it } from 'vitest';
import { isRealAuthor, selectAuthors } from '../../packages/formats/src/author.js';
import { decodePdfText } from '../../packages/formats/src/pdf/text.js';
import { decodeXmlText } from '../../packages/formats/src/xmp/read.js';
import { parseMultipart, readBoundary } from '../src/http/middleware/multipart.js';
import { readTextMetadata, readXmp } from '../src/metadata/readers.js';
import { answerTo } from './format-refusal.js';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

describe('decodePdfText', () => {
  it('decodes PDFDocEncoding where it differs from Latin-1', () => {
    expect(decodePdfText(Uint8Array.of(0x95, 0x75, 0xa0, 0x20, 0x84, 0x8d, 0x8e, 0xfc))).toBe('Łu€ —“”ü');
  });
  it('decodes UTF-16BE and UTF-16LE after their byte-order marks, UTF-8 after its BOM', () => {
    expect(decodePdfText(Uint8Array.of(0xfe, 0xff, 0x5c, 0x71, 0x75, 0x30))).toBe('山田');
    expect(decodePdfText(Uint8Array.of(0xff, 0xfe, 0x71, 0x5c, 0x30, 0x75))).toBe('山田');
    expect(decodePdfText(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('Zoë')]))).toBe('Zoë');
  });
});

describe('readXmp', () => {
  it('resolves namespace prefixes instead of trusting `dc:`', () => {
    const xmp = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><r:RDF xmlns:r="${RDF}"><r:Description xmlns:d="http://purl.org/dc/elements/1.1/">
      <d:creator><r:Bag><r:li>Ann Lee</r:li><r:li>Bo Ek</r:li></r:Bag></d:creator>
      <d:title><r:Alt><r:li xml:lang="de">Titel</r:li><r:li xml:lang="x-default">Title</r:li></r:Alt></d:title>
      </r:Description></r:RDF></x:xmpmeta>`;
    expect(readXmp(xmp)).toEqual({ authors: ['Ann Lee', 'Bo Ek'], title: 'Title' });
  });
  it('ignores a dc:creator in another namespace', () => {
    const xmp = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="${RDF}"><rdf:Description xmlns:dc="urn:not-dublin-core"><dc:creator>Fake</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>`;
    expect(readXmp(xmp).authors).toEqual([]);
  });
  it('reads the attribute short form and decodes only predefined entities and character references', () => {
    const xmp = `<rdf:RDF xmlns:rdf="${RDF}"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:title="A &amp; B &#x263A; &custom;"/></rdf:RDF>`;
    expect(readXmp(xmp).title).toBe('A & B ☺ &custom;');
    expect(decodeXmlText('&lt;script&gt;')).toBe('<script>');
  });
  it('refuses a DOCTYPE and malformed XML with INVALID_FORMAT', () => {
    expect(() => readXmp('<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')).toThrow(/DOCTYPE/);
    expect(answerTo(() => readXmp('<a><b></a>'))).toMatchObject({ status: 422, code: 'INVALID_FORMAT' });
  });
  it('refuses XML nested deeper than 64 levels', () => {
    expect(() => readXmp(`${'<a>'.repeat(500)}${'</a>'.repeat(500)}`)).toThrow(/nested/);
  });
});

describe('readTextMetadata', () => {
  it('reads author as a string, a list, { name }, a list of { name }, and `authors:`', () => {
    expect(readTextMetadata('---\nauthor: Ann Lee\n---\n', true).authors).toEqual(['Ann Lee']);
    expect(readTextMetadata('---\nauthor: [Ann Lee, Bo Ek]\n---\n', true).authors).toEqual([
      'Ann Lee',
      'Bo Ek',
    ]);
    expect(readTextMetadata('---\nauthor: { name: Ann Lee }\n---\n', true).authors).toEqual(['Ann Lee']);
    expect(readTextMetadata('---\nauthor:\n  - name: Ann Lee\n  - Bo Ek\n---\n', true).authors).toEqual([
      'Ann Lee',
      'Bo Ek',
    ]);
    expect(readTextMetadata('---\nauthors: [Cy Do]\n---\n', true).authors).toEqual(['Cy Do']);
  });
  it('takes the title from frontmatter, else the first heading (Markdown only); handles BOM and CRLF', () => {
    expect(
      readTextMetadata(
        '\uFEFF---\r\nauthor: Ann Lee\r\n---\r\n\r\n## Second-level first\r\n# Later\r\n',
        true,
      ),
    ).toMatchObject({
      authors: ['Ann Lee'],
      title: 'Second-level first',
    });
    expect(readTextMetadata('# Not a heading in plain text\n', false).title).toBeUndefined();
  });
  it('reads the same on the bytes, where only ASCII decides: U+2028 ends a line, a 3-byte character counts once', () => {
    // Issue 22 (L7): uploads are read on their bytes, never decoded whole. Characters, not bytes, are what
    // the frontmatter limit counts; U+2028/U+2029 end a line as in JavaScript's `$`.
    expect(readTextMetadata('Intro\u2028## Grüße aus Köln ##  \nmore', true).title).toBe('Grüße aus Köln');
    expect(readTextMetadata('\uFEFF---\r\nauthor: Åsa Öberg\r\n...\r\n# Ü', true)).toEqual({
      authors: ['Åsa Öberg'],
      authorSource: 'yaml:author',
      title: 'Ü',
    });
    const euros = `title: ${'€'.repeat(30_000)}\n`; // 90 000 bytes, 30 000 characters
    expect(readTextMetadata(`---\n${euros}---\n`, true).title).toHaveLength(30_000);
    expect(() => readTextMetadata(`---\ntitle: ${'a'.repeat(70_000)}\n---\n`, true)).toThrow(/larger than/);
  });

  it('refuses alias bombs', () => {
    const bomb = `---\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nauthor: *c\n---\n`;
    expect(() => readTextMetadata(bomb, true)).toThrow(/resource exhaustion|Frontmatter/);
  });
});

describe('placeholder authors', () => {
  it('rejects the documented placeholder list case-insensitively and names under 2 characters', () => {
    for (const name of [
      'unknown',
      'Unbekannt',
      'ANONYMOUS',
      'anonym',
      'AI',
      'ki',
      'generated',
      'Test',
      'example',
      'X',
      ' ',
    ]) {
      expect(isRealAuthor(name), name).toBe(false);
    }
    expect(isRealAuthor('Al')).toBe(true);
    expect(selectAuthors(['Unknown', ' Ann\u0000 Lee ', 'Ann Lee', 42, 'KI'])).toEqual(['Ann Lee']);
  });
});

describe('parseMultipart', () => {
  it('splits parts without copying and reads quoted and RFC 5987 file names', () => {
    const body = new TextEncoder().encode(
      '--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--b\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8\'\'B%C3%A4r.md\r\nContent-Type: text/markdown\r\n\r\n--b-not-a-boundary\r\n\r\n--b--\r\n',
    );
    const parts = parseMultipart(body, 'b');
    expect(parts.map((p) => [p.name, p.fileName, new TextDecoder().decode(p.data)])).toEqual([
      ['note', undefined, 'hi'],
      ['file', 'Bär.md', '--b-not-a-boundary\r\n'],
    ]);
    expect(parts[1]?.data.buffer).toBe(body.buffer);
    expect(readBoundary('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(readBoundary('application/json')).toBeUndefined();
  });
  it('refuses truncated bodies', () => {
    expect(() =>
      parseMultipart(
        new TextEncoder().encode('--b\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc'),
        'b',
      ),
    ).toThrow();
  });
});
