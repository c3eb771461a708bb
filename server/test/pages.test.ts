import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, readFixture, signRequest, TOKEN, uploadForm } from './test-app.js';

describe('web pages, event pages and served files', () => {
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  let signed: { hash: string; urls: Record<string, string>; event: { id: string; content: string } };
  let text: { hash: string; urls: Record<string, string>; event: { id: string } };
  beforeAll(async () => {
    t = await makeTestApp();
    signed = await (
      await signRequest(t.app, uploadForm('x.png', await readFixture('png-script-author.png')))
    ).json();
    text = await (
      await signRequest(t.app, uploadForm('rilke.md', await readFixture('md-string-author.md')))
    ).json();
  });
  afterAll(async () => t.close());

  const path = (url: string | undefined) => {
    const parsed = new URL(url ?? 'missing:');
    return parsed.pathname + parsed.search;
  };

  it('sends security headers and a CSP on every page, API answer and file', async () => {
    for (const url of [
      '/tools/sign',
      '/verify',
      `/verify/${signed.event.id}`,
      `/verify?hash=${signed.hash}`,
      '/api/verify?hash=x',
      path(signed.urls.file),
      path(signed.urls.static_page),
      '/nope',
      '/assets/sign.js',
    ]) {
      const response = await t.app.request(url);
      expect(response.headers.get('Content-Security-Policy'), url).toMatch(/default-src 'none'/);
      expect(response.headers.get('X-Content-Type-Options'), url).toBe('nosniff');
      expect(response.headers.get('X-Frame-Options'), url).toBe('DENY');
      expect(response.headers.get('Referrer-Policy'), url).toBe('no-referrer');
    }
    expect((await t.app.request(path(signed.urls.file))).headers.get('Content-Security-Policy')).toContain(
      'sandbox',
    );
  });

  it('writes an event page with the statement, hash, curl line, JSON-LD and the raw event; author escaped', async () => {
    const response = await t.app.request(path(signed.urls.static_page));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(signed.hash);
    expect(html).toContain(`curl -s &#39;http://siegel.test/api/verify?hash=${signed.hash}&#39;`);
    expect(html).toContain(`<a href="http://siegel.test/verify?hash=${signed.hash}">`);
    expect(html).toContain('&lt;script&gt;window.__siegelPwned = 1&lt;/script&gt;Eve Example');
    expect(html).not.toContain('<script>window.__siegelPwned');
    expect(html).toContain(signed.event.id);
    const ld = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)?.[1];
    const jsonLd = JSON.parse(ld ?? 'null');
    expect(jsonLd).toMatchObject({
      '@context': 'https://schema.org',
      sha256: signed.hash,
      author: [{ name: '<script>window.__siegelPwned = 1</script>Eve Example' }],
    });
    const json = await (await t.app.request(`/events/${signed.hash}/index.json`)).json();
    expect(json).toMatchObject({ hash: signed.hash, event: { id: signed.event.id } });
    expect((await t.app.request(`/events/${signed.hash}/`)).status).toBe(200);
  });

  it('puts the text of a text file on its event page', async () => {
    const html = await (await t.app.request(path(text.urls.static_page))).text();
    expect(html).toContain('Herr: es ist Zeit.');
    expect(html).toContain('Rainer Maria Rilke signed the file “Ein Gedicht”');
  });

  it('serves files by /documents/… and by hash alone (BUD-01), 404 for unknown hashes', async () => {
    const byPath = await t.app.request(path(signed.urls.file));
    const byHash = await t.app.request(`/${signed.hash}`);
    const byHashExt = await t.app.request(`/${signed.hash}.png`);
    expect(byHash.headers.get('Content-Type')).toBe('image/png');
    const bytes = Buffer.from(await byPath.arrayBuffer());
    expect(Buffer.from(await byHash.arrayBuffer()).equals(bytes)).toBe(true);
    expect(Buffer.from(await byHashExt.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await t.app.request(`/${'0'.repeat(64)}`)).status).toBe(404);
    expect((await t.app.request(`/documents/${'0'.repeat(64)}.png`)).status).toBe(404);
    expect((await t.app.request('/documents/..%2Fsiegel.sqlite')).status).toBe(404);
  });

  it('renders /tools/sign, /verify and /verify/{event id} with the author as text', async () => {
    const sign = await (await t.app.request('/tools/sign')).text();
    expect(sign).toMatch(/^<!DOCTYPE html>/);
    expect(sign).toContain('id="token"');
    expect(sign).toContain('<script src="/assets/sign.js" defer="">');
    const verified = await (await t.app.request(`/verify?hash=${signed.hash}`)).text();
    expect(verified).toContain('✓ Verified');
    expect(verified).toContain('&lt;script&gt;window.__siegelPwned');
    const unknown = await t.app.request(`/verify?hash=${'1'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('Not found');
    const byEvent = await t.app.request(`/verify/${signed.event.id}`);
    expect(await byEvent.text()).toContain(signed.hash);
    expect((await t.app.request(`/verify/${'2'.repeat(64)}`)).status).toBe(404);
  });

  it('inspects a file without signing or storing it', async () => {
    const response = await t.app.request('/api/inspect', {
      method: 'POST',
      body: uploadForm('a.jpg', await readFixture('jpeg-multi-author.jpg')),
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    const body = await response.json();
    expect(body).toMatchObject({
      success: true,
      signable: true,
      already_signed: false,
      metadata: { authors: ['Ana Lima', 'Björn Ødegård', '山田 花子'], title: 'Drei Köpfe' },
      dimensions: { width: 80, height: 60 },
    });
    expect((await t.app.request(`/api/verify?hash=${body.hash}`)).status).toBe(404);
    const none = await (
      await t.app.request('/api/inspect', {
        method: 'POST',
        body: uploadForm('n.png', await readFixture('png-no-author.png')),
        headers: { Authorization: `Bearer ${TOKEN}` },
      })
    ).json();
    expect(none).toMatchObject({ success: true, signable: false, error: 'AUTHOR_REQUIRED' });
    const again = await (
      await t.app.request('/api/inspect', {
        method: 'POST',
        body: uploadForm('x.png', await readFixture('png-script-author.png')),
        headers: { Authorization: `Bearer ${TOKEN}` },
      })
    ).json();
    expect(again).toMatchObject({ signable: false, already_signed: true, urls: { file: signed.urls.file } });
  });

  it('inspects only for a sign token holder (issue 10: the parsers were reachable without a token)', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wrong-token' }] as Record<string, string>[]) {
      const response = await t.app.request('/api/inspect', {
        method: 'POST',
        body: uploadForm('a.jpg', await readFixture('jpeg-multi-author.jpg')),
        headers,
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ success: false, error: 'UNAUTHORIZED' });
    }
  });
});
