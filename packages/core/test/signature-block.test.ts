import { decode, neventEncode, noteEncode, npubEncode } from 'nostr-tools/nip19';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import {
  analyzePage,
  applySignatureBlock,
  createPageEvent,
  readSignatureBlock,
  renderSignatureBlock,
  SiegelError,
} from '../src/index.js';

const secretKey = generateSecretKey();
const pubkey = getPublicKey(secretKey);
const hash = 'ab'.repeat(32);
const event = finalizeEvent(
  createPageEvent({ hash, url: 'https://example.com/a/', title: 'A', createdAt: 1_700_000_000 }),
  secretKey,
);
const verifyUrl = `https://example.com/verify/${event.id}`;

describe('renderSignatureBlock', () => {
  it('renders exactly the documented block', () => {
    const block = renderSignatureBlock(event, { verifyUrl });
    const nevent = neventEncode({ id: event.id, author: pubkey, kind: 1063, relays: [] });
    expect(block).toBe(
      [
        '<!-- siegel-page/2: signed by Siegel; verify: sha256 of main.innerHTML -->',
        `<meta name="nostr:event" content="${event.id}">`,
        `<meta name="nostr:pubkey" content="${pubkey}">`,
        `<meta name="nostr:hash" content="${hash}">`,
        `<link rel="nostr-verification" href="${verifyUrl}">`,
        `<link rel="alternate" href="nostr:${nevent}">`,
        '<!-- /siegel-page -->',
      ].join('\n'),
    );
  });

  it('puts relay hints into the NIP-21 nevent link', () => {
    const block = renderSignatureBlock(event, { verifyUrl, relays: ['wss://relay.example.com'] });
    const nevent = /href="nostr:(nevent1[a-z0-9]+)"/.exec(block)?.[1] ?? '';
    const decoded = decode(nevent);
    expect(decoded.type).toBe('nevent');
    expect(decoded.data).toMatchObject({ id: event.id, author: pubkey, relays: ['wss://relay.example.com'] });
  });

  it('escapes the verify URL and the selector so neither can break out of attribute or comment', () => {
    const evil = 'https://x.example/"><script>alert(1)</script><!--';
    const block = renderSignatureBlock(event, {
      verifyUrl: evil,
      selector: 'main --><script>alert(2)</script>',
    });
    expect(block).not.toContain('<script>');
    const head = parse(`<head>${block}</head>`).childNodes[0];
    const children =
      head && 'childNodes' in head ? (head.childNodes[0] as { childNodes: unknown[] }).childNodes : [];
    // Still exactly: comment, 3 metas, 2 links, comment (plus the newlines between them).
    const names = (children as Array<{ nodeName: string }>)
      .map((node) => node.nodeName)
      .filter((n) => n !== '#text');
    expect(names).toEqual(['#comment', 'meta', 'meta', 'meta', 'link', 'link', '#comment']);
    expect(readSignatureBlock(`<head>${block}</head>`)?.verifyUrl).toBe(evil);
  });

  it('rejects an event whose id, pubkey or x tag is not hex, quoting the value', () => {
    expect(() => renderSignatureBlock({ ...event, id: '"><script>' }, { verifyUrl })).toThrow(SiegelError);
    expect(() => renderSignatureBlock({ ...event, id: '"><script>' }, { verifyUrl })).toThrow(/`"><script>`/);
    expect(() => renderSignatureBlock({ ...event, pubkey: 'npub1x' }, { verifyUrl })).toThrow(/pubkey/);
    expect(() => renderSignatureBlock({ ...event, tags: [] }, { verifyUrl })).toThrow(/`x` tag/);
  });
});

describe('applySignatureBlock', () => {
  const page = [
    '<!DOCTYPE html>\r\n<html lang="de">\r\n<head>\r\n  <meta charset="utf-8">\r\n  <title>Grüße &amp; "Zitate"</title>\r\n</head>',
    '\r\n<body>\r\n  <main><p>Ä &nbsp; <b>fett</p></main>\r\n</body>\r\n</html>\r\n',
  ].join('');

  it('keeps every byte outside the block, and applying twice equals applying once', () => {
    const block = renderSignatureBlock(event, { verifyUrl });
    const analysis = analyzePage(page);
    const once = applySignatureBlock(page, analysis, block);
    expect(once.slice(0, analysis.insertAt)).toBe(page.slice(0, analysis.insertAt));
    expect(once.slice(analysis.insertAt + block.length + 1)).toBe(page.slice(analysis.insertAt));
    expect(once.slice(analysis.insertAt, analysis.insertAt + block.length)).toBe(block);
    const twice = applySignatureBlock(once, analyzePage(once), block);
    expect(twice).toBe(once);
    expect(analyzePage(once).hash).toBe(analysis.hash);
  });

  it('rejects offsets outside the page', () => {
    expect(() => applySignatureBlock('<p>', { insertAt: 99, existingBlock: undefined }, 'b')).toThrow(/`99`/);
    expect(() =>
      applySignatureBlock('<p>', { insertAt: 0, existingBlock: { start: 2, end: 1 } }, 'b'),
    ).toThrow(SiegelError);
  });
});

describe('readSignatureBlock', () => {
  it('reads the block Siegel writes', () => {
    const block = renderSignatureBlock(event, { verifyUrl, relays: ['wss://r.example'] });
    const html = applySignatureBlock(
      '<head></head><main>x</main>',
      analyzePage('<head></head><main>x</main>'),
      block,
    );
    expect(readSignatureBlock(html)).toEqual({
      eventId: event.id,
      pubkey,
      hash,
      verifyUrl,
      nevent: neventEncode({ id: event.id, author: pubkey, kind: 1063, relays: ['wss://r.example'] }),
      relays: ['wss://r.example'],
      spec: 'siegel-page/2',
    });
  });

  it('reads the variants found in the wild: sha256: hash, nevent event, npub pubkey, upper-case hex', () => {
    const nevent = neventEncode({ id: event.id, author: pubkey });
    const html = `<head>
      <meta name="nostr:event" content="${nevent}">
      <meta name="nostr:pubkey" content="${npubEncode(pubkey)}">
      <meta name="nostr:hash" content="sha256:${hash.toUpperCase()}">
    </head>`;
    expect(readSignatureBlock(html)).toEqual({ eventId: event.id, pubkey, hash, nevent });
    const note = `<head><meta name="nostr:event" content="${noteEncode(event.id)}"></head>`;
    expect(readSignatureBlock(note)).toEqual({ eventId: event.id });
  });

  it('takes the event id and author from the nostr: alternate link when no metas are there', () => {
    const nevent = neventEncode({ id: event.id, author: pubkey });
    expect(readSignatureBlock(`<link rel="alternate" href="nostr:${nevent}">`)).toEqual({
      eventId: event.id,
      pubkey,
      nevent,
    });
  });

  it('leaves unreadable values out and returns undefined for a page without a block', () => {
    expect(readSignatureBlock('<meta name="nostr:hash" content="sha256:zz">')).toEqual({});
    expect(readSignatureBlock('<head><meta name="description" content="x"></head>')).toBeUndefined();
    expect(readSignatureBlock('<link rel="alternate" href="https://example.com/feed">')).toBeUndefined();
  });
});
