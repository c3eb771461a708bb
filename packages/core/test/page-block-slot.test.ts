import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applySignatureBlock, hashPage, readSignatureBlock } from '../src/index.js';
import { locateBlockSlot } from '../src/page/block-slot.js';

// locateBlockSlot parses the page with source locations up to the token that starts its body, and puts the
// block at the last token boundary where the tree builder is still in a head phase (source order, not tree
// order). These tests pin, for shapes of every way a head ends, that the block is read into <head>, the hash
// stays, signing again replaces the block, and the boundary is the one a browser's parser implies.

const directory = new URL('../fixtures/page-hash/', import.meta.url);
const vectors = readdirSync(directory)
  .filter((file) => file.endsWith('.html'))
  .map((file) => [file, readFileSync(new URL(file, directory), 'utf8')] as const);

const small: Array<readonly [string, string]> = [
  ['implied head', '<!doctype html><meta charset="utf-8"><title>T</title>\n<main>x</main>'],
  ['empty implied head', '<!doctype html><main>x</main>'],
  ['head closed by body', '<!doctype html><html><head><title>T</title>\n<body><main>x</main>'],
  ['head closed by text', '<!doctype html><head><title>T</title>  hello<main>x</main>'],
  ['noscript', '<!doctype html><head><noscript><p>no</p></noscript><main>x</main>'],
  ['body in a head script', '<head><script>"<body>"</script><title>x</title></head><body><main>x</main>'],
  ['meta after head', '<head></head><link rel="x"><meta name="a"><body><main>x</main>'],
  ['frameset', '<!doctype html><head><title>F</title></head><frameset><frame src="a"></frameset>'],
  ['no body content', '<!doctype html><head><title>T</title></head>'],
  [
    'CRLF',
    '<!DOCTYPE html>\r\n<html>\r\n<head>\r\n<title>T</title>\r\n</head>\r\n<body>\r\n<main>x</main>\r\n',
  ],
  ['surrogates', '<head><title>😀😀</title></head>😀<main>😀</main>'],
  // Issue 34: the first body node in tree order is not the first in source order.
  ['foster-parented text', '<!doctype html><table>stray<tr><td>x</td></tr></table><main>hi</main>'],
  ['foster-parented element', '<!doctype html><table><b>x</b><tr><td>y</td></tr></table><main>hi</main>'],
  ['ignored frame', '<!doctype html><frame><main>hi</main>'],
  ['early </body>', '<!doctype html></body><main>hi</main>'],
  ['NUL first', '<!doctype html>\0<main>hi</main>'],
  ['comment and NUL', '<!doctype html><!-- c -->\n\0 <main>hi</main>'],
  [
    'title then table text',
    '<!doctype html><title>T</title><table>x<tr><td>y</td></tr></table><main>hi</main>',
  ],
  ['unclosed title', '<!doctype html><title>T'],
  ['unclosed template in implied head', '<!doctype html><template><main>t</main>'],
  ['head attrs kept', '<!doctype html><!-- c --><head lang="de"><main>hi</main>'],
];

/** Where the block must go, for the shapes above whose answer is not the end of a `<head>`. */
const expectedAt: Record<string, string> = {
  'foster-parented text': '<table>',
  'foster-parented element': '<table>',
  'ignored frame': '<frame>',
  'early </body>': '</body>',
  'NUL first': '\0',
  'comment and NUL': '\0',
  'title then table text': '<table>',
  'unclosed title': '<title>',
  'unclosed template in implied head': '<template>',
};

const EVENT_ID = 'e'.repeat(64);
const BLOCK = `<!-- siegel-page/1: x -->\n<meta name="nostr:event" content="${EVENT_ID}">\n<!-- /siegel-page -->`;

describe('locateBlockSlot: the block lands in <head>, in source order', () => {
  for (const [name, unsigned] of [...small, ...vectors]) {
    it(name, () => {
      const slot = locateBlockSlot(unsigned);
      expect(slot.headPhase).toBe(true);
      const marker = expectedAt[name];
      if (marker !== undefined) expect(slot.insertAt).toBe(unsigned.indexOf(marker));
      const signed = applySignatureBlock(unsigned, slot, BLOCK);
      const again = locateBlockSlot(signed);
      expect(again.existingBlock).toEqual({ start: slot.insertAt, end: slot.insertAt + BLOCK.length });
      // The block's meta is parsed into <head>, and signing does not change the hash.
      expect(readSignatureBlock(signed)?.eventId).toBe(EVENT_ID);
      expect(hashPage(signed)).toBe(hashPage(unsigned));
      // Signing again replaces the block: the same page.
      expect(applySignatureBlock(signed, again, BLOCK)).toBe(signed);
    });
  }
});
