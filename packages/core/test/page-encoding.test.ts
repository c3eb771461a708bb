import { describe, expect, it } from 'vitest';
import { checkEncoding, readCharsetParameter, sniffEncoding } from '../src/page/encoding.js';
import { encodingFromContent, PRESCAN_BYTES, prescanEncoding } from '../src/page/encoding-prescan.js';

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
    // Other tags' attributes in every form the standard's "get an attribute" reads: a quoted `>` or `<meta`
    // is inside a value; `=` after white space still opens one; a leading `=` is part of a name.
    expect(prescan("<p a = '> <meta charset=latin1>' b><meta charset=koi8-r>")).toBe('koi8-r');
    expect(prescan('<p =x="<meta charset=latin1>"><meta charset=koi8-r>')).toBe('koi8-r');
    expect(prescan('<p a b/c =d e=f/><meta charset=koi8-r>')).toBe('koi8-r');
    expect(prescan('<p a=x>y <meta charset=koi8-r>')).toBe('koi8-r');
    expect(prescan('<p a= "<meta charset=latin1>"<meta charset=utf-8>><meta charset=koi8-r>')).toBe('koi8-r');
    expect(prescan('<p a="unclosed <meta charset=latin1>')).toBeUndefined();
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
    expect(refused(bytes('<meta charset="ascii"><main>Gr', [0xfc], '&szlig;e</main>'))?.code).toBe(
      'encoding',
    );
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

/**
 * One label (or several) of every ASCII-compatible legacy encoding of the Encoding Standard, with the
 * encoding a `<meta>` declaring it means (the prescan turns x-user-defined into windows-1252).
 */
const ASCII_COMPATIBLE: Array<[string, string]> = [
  ['ascii', 'windows-1252'],
  ['us-ascii', 'windows-1252'],
  ['windows-1252', 'windows-1252'],
  ['iso-8859-1', 'windows-1252'],
  ['latin1', 'windows-1252'],
  ['ibm866', 'ibm866'],
  ['iso-8859-2', 'iso-8859-2'],
  ['iso-8859-5', 'iso-8859-5'],
  ['iso-8859-7', 'iso-8859-7'],
  ['iso-8859-8-i', 'iso-8859-8-i'],
  ['iso-8859-16', 'iso-8859-16'],
  ['koi8-r', 'koi8-r'],
  ['koi8-u', 'koi8-u'],
  ['macintosh', 'macintosh'],
  ['windows-874', 'windows-874'],
  ['windows-1251', 'windows-1251'],
  ['windows-1258', 'windows-1258'],
  ['x-mac-cyrillic', 'x-mac-cyrillic'],
  ['gbk', 'gbk'],
  ['gb18030', 'gb18030'],
  ['big5', 'big5'],
  ['euc-jp', 'euc-jp'],
  ['shift_jis', 'shift_jis'],
  ['sjis', 'shift_jis'],
  ['euc-kr', 'euc-kr'],
  ['x-user-defined', 'windows-1252'],
];
/** Plain ASCII that still says everything: character references stand for the non-ASCII text. */
const ASCII_MAIN = '<main><p>Gr&uuml;&szlig;e &#x2713; C:\\dir ~user</p></main>';
/** The same with one byte beyond ASCII (a Latin-1 ü). */
const NON_ASCII_MAIN: Array<string | number[]> = ['<main><p>Gr', [0xfc], '&szlig;e</p></main>'];
const charsetMeta = (label: string) => `<meta charset="${label}">`;
const httpEquiv = (label: string) => `<meta http-equiv="content-type" content="text/html; charset=${label}">`;

describe('checkEncoding: plain ASCII reads alike under every ASCII-compatible encoding (issue 34)', () => {
  const check = (page: Uint8Array, contentType?: string) =>
    checkEncoding(page, contentType === undefined ? {} : { contentType });

  it.each(ASCII_COMPATIBLE)(
    '%s: signed when the bytes are ASCII, refused as before when not',
    (label, encoding) => {
      for (const declare of [charsetMeta, httpEquiv]) {
        expect(check(bytes('<!doctype html>', declare(label), ASCII_MAIN))).toBeUndefined();
        expect(check(bytes('<!doctype html>', declare(label), ...NON_ASCII_MAIN))).toEqual({
          code: 'encoding',
          message: `the page declares the character encoding ${encoding} (at byte 15): browsers decode it as that, not as UTF-8`,
        });
      }
      const http = `text/html; charset=${label}`;
      expect(check(bytes('<!doctype html>', ASCII_MAIN), http)).toBeUndefined();
      // The HTTP charset outranks the page's <meta>, UTF-8 or not.
      expect(check(bytes(charsetMeta('utf-8'), ASCII_MAIN), http)).toBeUndefined();
      expect(check(bytes(charsetMeta('iso-2022-jp'), ASCII_MAIN), http)).toBeUndefined();
      expect(check(bytes('<!doctype html>', ...NON_ASCII_MAIN), http)?.message).toBe(
        `the page is served with \`Content-Type: ${http}\`: browsers decode it as ${label === 'x-user-defined' ? 'x-user-defined' : encoding}, not as UTF-8`,
      );
      expect(check(bytes(charsetMeta('utf-8'), MAIN), http)?.code).toBe('encoding');
    },
  );

  it('reads a later <meta> the same way: ASCII-compatible passes for ASCII bytes only', () => {
    expect(check(bytes('<head>', PAD, charsetMeta('windows-1252'), '</head>', ASCII_MAIN))).toBeUndefined();
    expect(check(bytes(charsetMeta('utf-8'), PAD, charsetMeta('shift_jis'), ASCII_MAIN))).toBeUndefined();
    expect(check(bytes(charsetMeta('utf-8'), PAD, charsetMeta('shift_jis'), MAIN))?.message).toMatch(
      /^the page declares the character encoding shift_jis in a <meta> at byte 1053, and browsers may switch/,
    );
    expect(check(bytes(charsetMeta('latin1'), PAD, charsetMeta('iso-2022-kr'), ASCII_MAIN))?.message).toMatch(
      /^the page declares the character encoding replacement in a <meta> at byte 1054, and browsers may switch/,
    );
  });

  it('does not count ISO-2022 shifts (ESC, SO, SI) as plain ASCII under a declaration either', () => {
    for (const shift of [0x1b, 0x0e, 0x0f]) {
      const page = bytes(charsetMeta('windows-1252'), '<main>a', [shift], 'b</main>');
      expect(check(page)?.message).toBe(
        'the page declares the character encoding windows-1252 (at byte 0): browsers decode it as that, not as UTF-8',
      );
      expect(check(bytes('<main>a', [shift], 'b</main>'), 'text/html; charset=shift_jis')?.code).toBe(
        'encoding',
      );
    }
  });

  it('still refuses ISO-2022-JP, with an ESC byte or without', () => {
    for (const label of ['iso-2022-jp', 'csiso2022jp']) {
      const escaped = bytes(
        charsetMeta(label),
        '<main>',
        [0x1b, 0x24, 0x42],
        '$3',
        [0x1b, 0x28, 0x42],
        '</main>',
      );
      for (const page of [
        bytes(charsetMeta(label), ASCII_MAIN),
        bytes(httpEquiv(label), ASCII_MAIN),
        escaped,
      ])
        expect(check(page)?.message).toMatch(
          /^the page declares the character encoding iso-2022-jp \(at byte 0\): browsers decode it as that, not as UTF-8$/,
        );
      expect(check(bytes(ASCII_MAIN), `text/html; charset=${label}`)?.message).toBe(
        `the page is served with \`Content-Type: text/html; charset=${label}\`: browsers decode it as iso-2022-jp, not as UTF-8`,
      );
    }
  });

  it.each(['replacement', 'csiso2022kr', 'hz-gb-2312', 'iso-2022-cn', 'iso-2022-cn-ext', 'iso-2022-kr'])(
    '%s (the replacement encoding: one U+FFFD for the whole page) stays refused',
    (label) => {
      for (const declare of [charsetMeta, httpEquiv])
        expect(check(bytes(declare(label), ASCII_MAIN))?.message).toBe(
          'the page declares the character encoding replacement (at byte 0): browsers decode it as that, not as UTF-8',
        );
      expect(check(bytes(ASCII_MAIN), `text/html; charset=${label}`)?.message).toMatch(
        /browsers decode it as replacement, not as UTF-8$/,
      );
    },
  );

  it.each([
    ['utf-16', 'UTF-16LE'],
    ['utf-16le', 'UTF-16LE'],
    ['ucs-2', 'UTF-16LE'],
    ['csunicode', 'UTF-16LE'],
    ['utf-16be', 'UTF-16BE'],
    ['unicodefffe', 'UTF-16BE'],
  ])('%s: refused as the HTTP charset; a <meta> naming it means UTF-8, as today', (label, name) => {
    expect(check(bytes(ASCII_MAIN), `text/html; charset=${label}`)?.message).toBe(
      `the page is served with \`Content-Type: text/html; charset=${label}\`: browsers decode it as ${name}, not as UTF-8`,
    );
    // The standard's prescan reads a <meta> naming UTF-16 as UTF-8 (a page that is decoded by it is ASCII-compatible).
    for (const declare of [charsetMeta, httpEquiv]) {
      expect(check(bytes(declare(label), ASCII_MAIN))).toBeUndefined();
      expect(check(bytes(declare(label), MAIN))).toBeUndefined();
    }
  });
});
