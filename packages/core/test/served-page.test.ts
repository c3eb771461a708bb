// One served page read as every browser verifier reads it (verify/script/served-page.ts): with an `origin`,
// the page's loads against it go to the manifest gathering (`known`, read under the current spec only), and
// the reading itself judges none, as without one.
import { describe, expect, it } from 'vitest';
import { readServedPage } from '../src/verify/script/served-page.js';

const bytes = new TextEncoder().encode(
  '<!doctype html><html><head><script type="module" src="/app.js"></script></head><body><main>x</main></body></html>',
);
const origin = { address: 'https://example.com/a/', siteUrl: 'https://example.com/' };
const read = (spec: 'siegel-page/1' | 'siegel-page/2', withOrigin: boolean) =>
  readServedPage(bytes, {
    contentType: 'text/html; charset=utf-8',
    selector: 'main',
    spec,
    ...(withOrigin ? { origin } : {}),
  });

describe('a served page’s loads for the manifest gathering', () => {
  it('are read against the origin given, under the current spec, and stay out of the reading', async () => {
    const served = await read('siegel-page/2', true);
    expect(served.known?.address).toBe(origin.address);
    expect(served.known?.siteUrl).toBe(origin.siteUrl);
    expect(served.known?.loads.some((load) => load.includes('/app.js'))).toBe(true);
    expect(served.reading.loads).toEqual([]);
    expect(served.reading).toEqual((await read('siegel-page/2', false)).reading);
  });

  it('are not handed over without an origin, nor for a page of an older spec', async () => {
    expect((await read('siegel-page/2', false)).known).toBeUndefined();
    expect((await read('siegel-page/1', true)).known).toBeUndefined();
  });
});
