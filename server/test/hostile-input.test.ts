import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api-error.js';
import { analyzeFile } from '../src/metadata/analyze-file.js';
import { FIXTURES } from './test-app.js';

/** A small deterministic PRNG (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SOURCES = [
  'png-author.png',
  'jpeg-multi-author.jpg',
  'gif-author.gif',
  'webp-author.webp',
  'webp-lossless-author.webp',
  'pdf-utf16-author.pdf',
  'pdf-pdfdoc-author.pdf',
  'pdf-objstm-author.pdf',
  'pdf-xmp-only.pdf',
  'md-list-authors.md',
];

describe('hostile input: mutated real files never escape as anything but a 4xx ApiError', () => {
  for (const name of SOURCES) {
    it(`survives 300 truncations and byte mutations of ${name}`, () => {
      const original = readFileSync(`${FIXTURES}${name}`);
      const next = random(name.length * 7919);
      for (let round = 0; round < 300; round++) {
        const bytes = Buffer.from(original);
        let mutated: Buffer;
        if (round % 3 === 0) {
          mutated = bytes.subarray(0, Math.floor(next() * bytes.length));
        } else {
          for (let flips = 1 + Math.floor(next() * 8); flips > 0; flips--) {
            bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
          }
          mutated = bytes;
        }
        try {
          analyzeFile(mutated, name);
        } catch (error) {
          expect(error, `${name} round ${round}: ${(error as Error).stack}`).toBeInstanceOf(ApiError);
          expect((error as ApiError).status).toBeLessThan(500);
        }
      }
    });
  }
});
