import { describe, expect, it } from 'vitest';
import {
  checkEncoding,
  encodingFromContent,
  PRESCAN_BYTES,
  prescanEncoding,
  readCharsetParameter,
  sniffEncoding,
} from '../src/page/encoding.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (...parts: Array<string | number[]>) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...utf8(part)] : part)));
const prescan = (text: string) => prescanEncoding(utf8(text))?.encoding;
const MAIN = '<main><p>Grüße</p></main>';
/** An HTML comment that fills the prescan's 1024 bytes. */
const PAD = `<!--${'x'.repeat(PRESCAN_BYTES)}-->`;

describe('the prescan: the standard’s algorithm over the first 1024 bytes', () => {
  it.each([
    ['<meta charset="utf-8">', 'utf-8'],
    ['<META CHARSET=UTF-8>', 'utf-8'],
    ['<meta charset="utf8">', 'utf-8'],
    ['<meta charset="unicode-1-1-utf-8">', 'utf-8'],
    ['<meta charset=" Latin1 ">', 'windows-1252'],
    ['<meta charset="iso-8859-1">', 'windows-1252'],
    ['<meta charset="ascii">', 'windows-1252'],
    ['<meta charset="iso-2022-jp">', 'iso-2022-jp'],
    ['<meta charset="sjis">', 'shift_jis'],
    ['<meta charset="iso-2022-kr">', 'replacement'],
    // A meta declaring UTF-16 means UTF-8; x-user-defined means windows-1252.
    ['<meta charset="utf-16">', 'utf-8'],
    ['<meta charset="UTF-16BE">', 'utf-8'],
    ['<meta charset="x-user-defined">', 'windows-1252'],
    ['<meta charset="no-such-encoding">', undefined],
    ['<meta/charset=koi8-r>', 'koi8-r'],
  ])('%s → %s', (html, encoding) => {
    expect(prescan(`<!doctype html><html><head>${html}<title>t</title>`)).toBe(encoding);
  });

  it.each([
    ['<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">', 'windows-1252'],
    ['<meta content="text/html; charset=koi8-r" http-equiv="content-type">', 'koi8-r'],
    ['<meta http-equiv=content-type content="text/html;charset=\'shift_jis\'">', 'shift_jis'],
    // Without http-equiv, content is not a declaration; with another pragma neither.
    ['<meta content="text/html; charset=windows-1252">', undefined],
    ['<meta http-equiv="refresh" content="0; charset=windows-1252">', undefined],
    // The first of duplicated attributes counts; a charset attribute outranks content.
    ['<meta charset="utf-8" charset="latin1">', 'utf-8'],
    [
      '<meta http-equiv="content-type" content="text/html; charset=latin1" charset="iso-8859-2">',
      'iso-8859-2',
    ],
    // A charset that names nothing is the standard's failure: content does not stand in for it.
    ['<meta charset="bogus" http-equiv="content-type" content="text/html; charset=latin1">', undefined],
  ])('http-equiv: %s → %s', (html, encoding) => {
    expect(prescan(`<head>${html}`)).toBe(encoding);
  });

  it('skips comments (also `<!-->`), reads past other tags’ attributes and end tags, and stops at the first declaration', () => {
    expect(prescan('<!-- <meta charset="iso-8859-2"> --><meta charset="utf-8">')).toBe('utf-8');
    expect(prescan('<!--><meta charset="iso-8859-2">-->')).toBe('iso-8859-2');
    expect(prescan('<div title="<meta charset=latin1>"><meta charset=utf-8>')).toBe('utf-8');
    expect(prescan('</div title="<meta charset=latin1>"><meta charset=utf-8>')).toBe('utf-8');
    expect(prescan('<!doctype html <meta charset=latin1>><meta charset=utf-8>')).toBe('utf-8');
    expect(prescan('<meta name="x"><meta charset="euc-kr"><meta charset="utf-8">')).toBe('euc-kr');
  });

  it('reads only the first 1024 bytes, and stops at a <meta> they end inside', () => {
    expect(prescan(`${PAD}<meta charset="iso-8859-1">`)).toBeUndefined();
    const cut = `${'x'.repeat(PRESCAN_BYTES - 20)}<meta charset="iso-8859-1">`;
    expect(prescan(cut)).toBeUndefined();
    expect(prescanEncoding(utf8(cut), 2048)?.encoding).toBe('windows-1252');
  });

  it('knows an XML declaration and the UTF-16 `<?x` prefixes', () => {
    expect(prescan('<?xml version="1.0" encoding="windows-1252"?><html>')).toBe('windows-1252');
    expect(prescan('<?xml version="1.0" encoding="UTF-16"?><html>')).toBe('utf-8');
    expect(prescan('<?xml version="1.0"?><html>')).toBeUndefined();
    expect(prescan("<?xml version='1.0' encoding = 'koi8-r' ?><html>")).toBe('koi8-r');
    expect(prescan('<?xml version="1.0" encoding="utf 8"?><html>')).toBeUndefined();
    expect(prescan('<?XML version="1.0" encoding="latin1"?><html>')).toBeUndefined();
    expect(prescanEncoding(bytes([0x3c, 0, 0x3f, 0, 0x78, 0]))?.encoding).toBe('utf-16le');
    expect(prescanEncoding(bytes([0, 0x3c, 0, 0x3f, 0, 0x78]))?.encoding).toBe('utf-16be');
  });

  it('extracts a charset from a content attribute as the standard does', () => {
    expect(encodingFromContent('text/html; charset=utf-8')).toBe('utf-8');
    expect(encodingFromContent('text/html; CHARSET = "latin1" ; x')).toBe('windows-1252');
    expect(encodingFromContent('charsetx; charset=koi8-r')).toBe('koi8-r');
    expect(encodingFromContent('text/html; charset="latin1')).toBeUndefined();
    expect(encodingFromContent('text/html; charset=')).toBeUndefined();
    expect(encodingFromContent('text/html')).toBeUndefined();
  });
});

describe('sniffEncoding: byte order mark, then HTTP charset, then the prescan', () => {
  it('reads the HTTP charset parameter', () => {
    expect(readCharsetParameter('text/html; charset=ISO-8859-1')).toBe('ISO-8859-1');
    expect(readCharsetParameter('text/html;Charset="utf-8"')).toBe('utf-8');
    expect(readCharsetParameter('text/html; foo="a;b"; charset=koi8-r')).toBe('koi8-r');
    expect(readCharsetParameter('text/html; charset=latin1; charset=utf-8')).toBe('latin1');
    expect(readCharsetParameter('text/html')).toBeUndefined();
    expect(readCharsetParameter(undefined)).toBeUndefined();
    expect(readCharsetParameter(null)).toBeUndefined();
  });

  it('puts the BOM first, the HTTP charset second, a known label only', () => {
    const page = bytes('<meta charset="iso-8859-2">', MAIN);
    expect(sniffEncoding(page)).toEqual({ encoding: 'iso-8859-2', source: 'meta', at: 0 });
    expect(sniffEncoding(page, { contentType: 'text/html; charset=utf-8' })).toEqual({
      encoding: 'utf-8',
      source: 'http',
    });
    expect(sniffEncoding(page, { contentType: 'text/html; charset=bogus' }).source).toBe('meta');
    const bom = bytes([0xef, 0xbb, 0xbf], '<meta charset="iso-8859-2">');
    expect(sniffEncoding(bom, { contentType: 'text/html; charset=latin1' })).toEqual({
      encoding: 'utf-8',
      source: 'bom',
    });
    expect(sniffEncoding(bytes([0xff, 0xfe], '<')).encoding).toBe('utf-16le');
    expect(sniffEncoding(bytes([0xfe, 0xff], '<')).encoding).toBe('utf-16be');
    expect(sniffEncoding(utf8(MAIN))).toEqual({ encoding: undefined, source: 'none' });
  });
});

describe('checkEncoding: a page a browser would not decode as UTF-8 is not verifiable', () => {
  const refused = (page: Uint8Array, contentType?: string) =>
    checkEncoding(page, contentType === undefined ? {} : { contentType });

  it('lets UTF-8 pass: declared, by BOM, by HTTP, or plain ASCII without a declaration', () => {
    expect(refused(bytes('<meta charset="UTF-8">', MAIN))).toBeUndefined();
    expect(refused(bytes('<meta charset="utf8">', MAIN))).toBeUndefined();
    expect(
      refused(bytes('<meta http-equiv="content-type" content="text/html; charset=utf-8">', MAIN)),
    ).toBeUndefined();
    expect(refused(bytes([0xef, 0xbb, 0xbf], MAIN))).toBeUndefined();
    expect(refused(bytes(MAIN), 'text/html; charset=utf-8')).toBeUndefined();
    // The HTTP charset settles it: a browser ignores the page's own <meta> then.
    expect(refused(bytes('<meta charset="latin1">', MAIN), 'text/html;charset=UTF-8')).toBeUndefined();
    expect(refused(bytes('<main><p>Hello &uuml;</p></main>'))).toBeUndefined();
    expect(refused(bytes(`<meta charset="utf-8">${PAD}<meta charset="utf-8">`, MAIN))).toBeUndefined();
  });

  it('refuses a UTF-16 byte order mark, LE and BE', () => {
    expect(refused(bytes([0xff, 0xfe], '<meta charset="utf-8">', MAIN))).toEqual({
      code: 'encoding',
      message:
        'the page starts with a UTF-16LE byte order mark: browsers decode it as UTF-16LE, not as UTF-8',
    });
    expect(refused(bytes([0xfe, 0xff], MAIN))?.message).toMatch(/UTF-16BE byte order mark/);
  });

  it('refuses a <meta> naming another encoding, ISO-2022-JP escapes or not', () => {
    const jp = bytes(
      '<!doctype html><meta charset="iso-2022-jp"><title>t</title>',
      [0x1b, 0x24, 0x42],
      '$3$s',
      [0x1b, 0x28, 0x42],
      '<main>Hi</main>',
    );
    expect(refused(jp)?.message).toBe(
      'the page declares the character encoding iso-2022-jp (at byte 15): browsers decode it as that, not as UTF-8',
    );
    const cp1252 = bytes('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">', MAIN);
    expect(refused(cp1252)?.code).toBe('encoding');
    expect(refused(bytes('<meta charset="ascii"><main>Hi</main>'))?.code).toBe('encoding');
  });

  it('refuses an HTTP charset naming another encoding, whatever the page declares', () => {
    const page = bytes('<meta charset="utf-8">', MAIN);
    expect(refused(page, 'text/html; charset=iso-8859-1')?.message).toBe(
      'the page is served with `Content-Type: text/html; charset=iso-8859-1`: browsers decode it as windows-1252, not as UTF-8',
    );
    expect(refused(page, 'text/html; charset=utf-16')?.code).toBe('encoding');
  });

  it('refuses a later <meta> naming another encoding (browsers may switch), not one naming UTF-8', () => {
    const late = bytes('<head>', PAD, '<meta charset="iso-2022-jp"></head><main>Hi</main>');
    expect(prescanEncoding(late)).toBeUndefined();
    expect(refused(late)?.message).toMatch(
      /^the page declares the character encoding iso-2022-jp in a <meta> at byte 1037, and browsers may switch/,
    );
    // The prescan found UTF-8 first, but the standard's answer is tentative: a later meta still switches.
    expect(refused(bytes('<meta charset="utf-8">', PAD, '<meta charset="latin1">', MAIN))?.code).toBe(
      'encoding',
    );
  });

  it('refuses bytes beyond ASCII (or ISO-2022 escapes) when nothing declares an encoding', () => {
    const message = refused(bytes('<!doctype html><title>t</title>', MAIN))?.message;
    expect(message).toMatch(/^the page declares no character encoding in its first 1024 bytes/);
    expect(message).toMatch(/declare `<meta charset="utf-8">` within its first 1024 bytes$/);
    expect(refused(bytes('<main>', [0x1b, 0x24, 0x42], '$3', [0x1b, 0x28, 0x42], '</main>'))?.code).toBe(
      'encoding',
    );
    // A UTF-8 declaration only after the first 1024 bytes: not every browser reads it.
    expect(refused(bytes(PAD, '<meta charset="utf-8">', MAIN))?.code).toBe('encoding');
  });
});
