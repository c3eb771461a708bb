import { describe, expect, it } from 'vitest';
import { createSecurityHeaders, PAGE_CSP } from '../src/http/middleware/security-headers.js';
import { makeTestApp, readFixture, signRequest, uploadForm } from './test-app.js';

describe('security headers: one table for the middleware, the verify API and errors', () => {
  it('pins the page CSP', () => {
    expect(PAGE_CSP).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
  });

  for (const https of [false, true]) {
    it(`sends exactly the table's headers on pages, API answers and errors (${https ? 'https' : 'http'})`, async () => {
      const t = await makeTestApp({ baseUrl: https ? 'https://siegel.test' : 'http://siegel.test' });
      try {
        const table = createSecurityHeaders({ https });
        expect('Strict-Transport-Security' in table).toBe(https);
        const signed = await (
          await signRequest(t.app, uploadForm('x.png', await readFixture('png-author.png')))
        ).json();
        const own = new URL(signed.urls.file).pathname;
        for (const [path, init] of [
          ['/tools/sign', {}],
          ['/assets/sign.js', {}],
          ['/nope', {}],
          [`/api/verify?hash=${signed.hash}`, {}],
          ['/api/verify?hash=x', {}],
          ['/api/sign-image-v2', { method: 'POST' }],
          [own, {}],
        ] as const) {
          const response = await t.app.request(path, init);
          const security = Object.fromEntries(
            Object.keys(table).map((name) => [name, response.headers.get(name)]),
          );
          // Served uploads keep their own sandboxing CSP; everything else is the table's.
          expect(security, path).toEqual(
            path === own
              ? { ...table, 'Content-Security-Policy': expect.stringContaining('sandbox') }
              : table,
          );
          // Hono's other defaults are off: CORP would stop other sites from embedding served files.
          for (const name of ['Cross-Origin-Resource-Policy', 'X-XSS-Protection', 'Origin-Agent-Cluster'])
            expect(response.headers.get(name), `${path} ${name}`).toBeNull();
        }
      } finally {
        await t.close();
      }
    });
  }
});
