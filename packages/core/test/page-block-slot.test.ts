import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applySignatureBlock, hashPage, readSignatureBlock } from '../src/index.js';
import { locateBlockSlot } from '../src/page/block-slot.js';

// locateBlockSlot parses only a prefix of the page (up to the body start) with source locations. These tests
// pin that the answer never depends on where that prefix is cut: any starting length gives the same slot as
// a parse of the whole page.

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
];

const EVENT_ID = 'e'.repeat(64);
const BLOCK = `<!-- siegel-page/1: x -->\n<meta name="nostr:event" content="${EVENT_ID}">\n<!-- /siegel-page -->`;

function lengths(total: number): number[] {
  if (total <= 400) return Array.from({ length: total + 1 }, (_, index) => index + 1);
  const result = [1, 2, 3];
  for (let step = 5; step < total; step = Math.ceil(step * 1.3)) result.push(step);
  return result;
}

describe('locateBlockSlot: the prefix parse sees what a full parse sees', () => {
  for (const [name, unsigned] of [...small, ...vectors]) {
    it(name, () => {
      const full = locateBlockSlot(unsigned, { prefixLength: unsigned.length });
      const signed = applySignatureBlock(unsigned, full, BLOCK);
      const signedFull = locateBlockSlot(signed, { prefixLength: signed.length });
      expect(signedFull.existingBlock).toEqual({ start: full.insertAt, end: full.insertAt + BLOCK.length });
      // The block's meta is parsed into <head>, and signing does not change the hash.
      expect(readSignatureBlock(signed)?.eventId).toBe(EVENT_ID);
      expect(hashPage(signed)).toBe(hashPage(unsigned));
      for (const [html, expected] of [
        [unsigned, full],
        [signed, signedFull],
      ] as const) {
        expect(locateBlockSlot(html)).toEqual(expected);
        for (const prefixLength of lengths(html.length)) {
          expect(locateBlockSlot(html, { prefixLength }), `prefix ${prefixLength}`).toEqual(expected);
        }
      }
    });
  }
});
