import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { npubEncode } from 'nostr-tools/nip19';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, makeTestApp, readFixture, signRequest, uploadForm } from './test-app.js';

describe('GET /api/verify and /api/badge', () => {
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  let signed: { hash: string; event: { id: string; pubkey: string; sig: string; created_at: number } };
  beforeAll(async () => {
    t = await makeTestApp();
    const response = await signRequest(
      t.app,
      uploadForm('pdf-utf16-author.pdf', await readFixture('pdf-utf16-author.pdf')),
    );
    signed = await response.json();
  });
  afterAll(async () => t.close());

  it('reports a signed hash verified, with record, signer, time, URLs and checks, CORS open', async () => {
    const response = await t.app.request(`/api/verify?hash=${signed.hash.toUpperCase()}`, {
      headers: { Origin: 'https://elsewhere.example' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const body = await response.json();
    expect(body).toMatchObject({
      verified: true,
      hash: signed.hash,
      event: {
        id: signed.event.id,
        pubkey: signed.event.pubkey,
        npub: npubEncode(signed.event.pubkey),
        created_at: signed.event.created_at,
      },
      metadata: { author: 'Zoë Ångström, 山田 太郎', title: 'Bericht über Ökologie – 2026' },
      signer: { pubkey: signed.event.pubkey, npub: npubEncode(signed.event.pubkey) },
      signed_at: new Date(signed.event.created_at * 1000).toISOString(),
      checks: { event_id: true, signature: true, hash_tag: true },
      reasons: [],
      urls: { file: `${BASE_URL}/documents/${signed.hash}.pdf` },
    });
  });

  it('answers CORS preflights for the open API', async () => {
    const response = await t.app.request('/api/verify?hash=x', {
      method: 'OPTIONS',
      headers: { Origin: 'https://a.example' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Access-Control-Allow-Methods')).toContain('GET');
  });

  it('accepts a `sha256:` prefix', async () => {
    expect((await t.app.request(`/api/verify?hash=sha256:${signed.hash}`)).status).toBe(200);
  });

  it('answers 404 { verified: false, hash, message, sign_url } for an unknown hash', async () => {
    const hash = 'f'.repeat(64);
    const response = await t.app.request(`/api/verify?hash=${hash}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      verified: false,
      hash,
      message: expect.any(String),
      sign_url: `${BASE_URL}/tools/sign`,
    });
  });

  it('answers 400 for malformed hashes', async () => {
    for (const bad of ['', 'abc', 'g'.repeat(64), `${'a'.repeat(64)}0`, '%00', '<script>']) {
      const response = await t.app.request(`/api/verify?hash=${encodeURIComponent(bad)}`);
      expect(response.status, bad).toBe(400);
      expect(await response.json()).toMatchObject({ success: false, verified: false, error: 'INVALID_HASH' });
    }
    expect((await t.app.request('/api/verify')).status).toBe(400);
  });

  it('reports an altered stored signature, content or x tag as not verified, with the reason', async () => {
    const original = t.records.db
      .prepare('SELECT event_json FROM signed_files WHERE hash = ?')
      .get(signed.hash) as { event_json: string };
    const event = JSON.parse(original.event_json);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['sig', { sig: `${event.sig.slice(0, -2)}${event.sig.endsWith('00') ? '11' : '00'}` }, 'signature'],
      ['content', { content: `${event.content} (edited)` }, 'event id'],
      [
        'x tag',
        { tags: event.tags.map((tag: string[]) => (tag[0] === 'x' ? ['x', '0'.repeat(64)] : tag)) },
        'event id',
      ],
    ];
    const update = t.records.db.prepare('UPDATE signed_files SET event_json = ? WHERE hash = ?');
    try {
      for (const [what, change, reason] of cases) {
        update.run(JSON.stringify({ ...event, ...change }), signed.hash);
        const body = await (await t.app.request(`/api/verify?hash=${signed.hash}`)).json();
        expect(body.verified, what).toBe(false);
        expect(body.reasons.join(' '), what).toContain(reason);
        const badge = await (await t.app.request(`/api/badge?hash=${signed.hash}`)).text();
        expect(badge).toContain('not verified');
      }
    } finally {
      update.run(original.event_json, signed.hash);
    }
    expect((await (await t.app.request(`/api/verify?hash=${signed.hash}`)).json()).verified).toBe(true);
  });

  it('reports a record altered through another database connection on the next call', async () => {
    const url = `/api/verify?hash=${signed.hash}`;
    expect((await (await t.app.request(url)).json()).verified).toBe(true);
    expect((await (await t.app.request(url)).json()).verified).toBe(true); // a reused answer
    const other = new DatabaseSync(join(t.dir, 'siegel.sqlite'));
    const update = other.prepare('UPDATE signed_files SET event_json = ? WHERE hash = ?');
    const { event_json: original } = other
      .prepare('SELECT event_json FROM signed_files WHERE hash = ?')
      .get(signed.hash) as { event_json: string };
    const event = JSON.parse(original);
    try {
      update.run(
        JSON.stringify({ ...event, sig: `${event.sig[0] === 'a' ? 'b' : 'a'}${event.sig.slice(1)}` }),
        signed.hash,
      );
      const body = await (await t.app.request(url)).json();
      expect(body.verified).toBe(false);
      expect(body.checks).toEqual({ event_id: true, signature: false, hash_tag: true });
      expect(body.reasons.join(' ')).toContain('signature');
    } finally {
      update.run(original, signed.hash);
      other.close();
    }
    expect((await (await t.app.request(url)).json()).verified).toBe(true);
  });

  it('serves an SVG badge: verified for a signed hash, not verified otherwise', async () => {
    const good = await t.app.request(`/api/badge?hash=${signed.hash}`);
    expect(good.headers.get('Content-Type')).toContain('image/svg+xml');
    const svg = await good.text();
    expect(svg).toContain('✓ verified');
    expect(svg).toContain(`${BASE_URL}/verify/${signed.event.id}`);
    expect(await (await t.app.request('/api/badge?hash=nothing')).text()).toContain('not verified');
  });
});
