// @siegel/client declares the server's answers for itself (it has no dependencies, so it cannot import the
// server's types); this test keeps the two declarations one contract: the error codes and the URL fields of
// a record must be the same on both sides, or the typecheck (`npm run typecheck`) and this test fail.
import { readFile } from 'node:fs/promises';
import { ERROR_CLASSES, type FileUrls, type ServerErrorCode } from '@siegel/client';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ApiErrorCode } from '../../server/src/http/api-error.js';
import type { FileUrls as ServerFileUrls } from '../../server/src/records/public-urls.js';

describe('the client and the server declare one API', () => {
  it('the same error codes (the client adds BAD_REQUEST, which Hono answers for malformed requests)', async () => {
    expectTypeOf<Exclude<ServerErrorCode, 'BAD_REQUEST'>>().toEqualTypeOf<ApiErrorCode>();
    // At run time too: the codes in the server's source, against the client's table of error classes.
    const source = await readFile(new URL('../../server/src/http/api-error.ts', import.meta.url), 'utf8');
    // Comments dropped first: a `;` in one would end the union early.
    const code = source.replace(/\/\/[^\n]*/g, '');
    const union = /export type ApiErrorCode =([^;]+);/.exec(code)?.[1] ?? '';
    const serverCodes = [...union.matchAll(/'([A-Z_]+)'/g)].map((match) => match[1]);
    expect(serverCodes.length).toBeGreaterThan(10);
    expect(
      Object.keys(ERROR_CLASSES)
        .filter((code) => code !== 'BAD_REQUEST')
        .sort(),
    ).toEqual(serverCodes.sort());
  });

  it('the same URL fields of a signed file', () => {
    expectTypeOf<FileUrls>().toEqualTypeOf<ServerFileUrls>();
  });
});
