import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { npubEncode } from 'nostr-tools/nip19';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemStorage } from '../src/storage/filesystem-storage.js';
import { SqliteRecordStore } from '../src/storage/sqlite-record-store.js';
import { BASE_URL, makeTestApp, readFixture, signRequest, uploadForm } from './test-app.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

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
      checks: { event_id: true, signature: true, hash_tag: true, fields: true, file: true },
      reasons: [],
      verdict: 'valid',
      problems: [],
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

  it('answers 404 { verified: false, hash, message, sign_url, verdict, problems } for an unknown hash', async () => {
    const hash = 'f'.repeat(64);
    const response = await t.app.request(`/api/verify?hash=${hash}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      verified: false,
      hash,
      message: expect.any(String),
      sign_url: `${BASE_URL}/tools/sign`,
      verdict: 'not_found',
      problems: [{ code: 'file.not_found', severity: 'error', message: expect.any(String) }],
    });
    const page = await (await t.app.request(`/verify?hash=${hash}`)).text();
    expect(page).toContain('data-verdict="not_found" data-codes="file.not_found"');
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
      expect(body.checks).toEqual({
        event_id: true,
        signature: false,
        hash_tag: true,
        fields: true,
        file: true,
      });
      expect(body.reasons.join(' ')).toContain('signature');
      expect(body).toMatchObject({ verdict: 'invalid', problems: [{ code: 'file.signature' }] });
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

  it('reports what the signed event states, not a changed column, and names the column', async () => {
    const update = t.records.db.prepare('UPDATE signed_files SET authors = ?, title = ? WHERE hash = ?');
    const url = `/api/verify?hash=${signed.hash}`;
    expect((await (await t.app.request(url)).json()).verified).toBe(true); // an answer to reuse
    try {
      update.run(JSON.stringify(['Mallory Forger']), 'Forged', signed.hash);
      const body = await (await t.app.request(url)).json();
      expect(body).toMatchObject({
        verified: false,
        checks: { event_id: true, signature: true, hash_tag: true, fields: false, file: true },
        metadata: { author: 'Zoë Ångström, 山田 太郎', title: 'Bericht über Ökologie – 2026' },
      });
      expect(body.reasons).toEqual([
        '`authors` does not match the signed event: stored `Mallory Forger`, signed `Zoë Ångström, 山田 太郎`.',
        '`title` does not match the signed event: stored `Forged`, signed `Bericht über Ökologie – 2026`.',
      ]);
      expect(body.message).toMatch(/^Not verified: `authors` does not match/);
      expect(body.verdict).toBe('invalid');
      expect(body.problems.map((problem: { code: string }) => problem.code)).toEqual([
        'file.record',
        'file.record',
      ]);
      // The forged author is only quoted in the reasons (and the problems, which say the same).
      expect(JSON.stringify({ ...body, reasons: [], message: '', problems: [] })).not.toContain('Mallory');
      const page = await (await t.app.request(`/verify?hash=${signed.hash}`)).text();
      expect(page).toContain('data-verified="false"');
      expect(page).toContain('data-verdict="invalid" data-codes="file.record"');
      expect(page).toContain('`authors` does not match the signed event');
      expect(page).toContain('<dd id="result-author">Zoë Ångström, 山田 太郎</dd>');
      expect(await (await t.app.request(`/api/badge?hash=${signed.hash}`)).text()).toContain('not verified');
      // The event pages are rendered from the signed event: the forged author is on none of them.
      const eventPage = await t.app.request(`/events/${signed.hash}/`);
      expect(eventPage.status).toBe(200);
      expect(await eventPage.text()).not.toContain('Mallory');
      expect(await (await t.app.request(`/events/${signed.hash}/index.json`)).text()).not.toContain(
        'Mallory',
      );
    } finally {
      update.run(JSON.stringify(['Zoë Ångström', '山田 太郎']), 'Bericht über Ökologie – 2026', signed.hash);
    }
    expect((await (await t.app.request(url)).json()).verified).toBe(true);
  });

  it('reads columns altered into anything as not verified, never a 500', async () => {
    const row = t.records.db
      .prepare('SELECT authors, event_json, pubkey FROM signed_files WHERE hash = ?')
      .get(signed.hash) as { authors: string; event_json: string; pubkey: string };
    const update = (column: string, value: string) =>
      t.records.db.prepare(`UPDATE signed_files SET ${column} = ? WHERE hash = ?`).run(value, signed.hash);
    try {
      for (const [column, value] of [
        ['authors', '{not json'],
        ['authors', '[1, 2]'],
        ['event_json', 'null'],
        ['event_json', '[]'],
        ['event_json', '{"tags": 5, "created_at": 1e300, "pubkey": "zz"}'],
        ['pubkey', 'not hex'],
      ] as const) {
        update(column, value);
        for (const path of [
          `/api/verify?hash=${signed.hash}`,
          `/verify?hash=${signed.hash}`,
          `/api/badge?hash=${signed.hash}`,
          `/events/${signed.hash}/`,
          `/${signed.hash}`,
        ]) {
          const response = await t.app.request(path);
          expect(response.status, `${column}=${value} ${path}`).toBeLessThan(500);
        }
        const body = await (await t.app.request(`/api/verify?hash=${signed.hash}`)).json();
        expect(body.verified, `${column}=${value}`).toBe(false);
        expect(body.reasons.length).toBeGreaterThan(0);
        update('authors', row.authors);
        update('event_json', row.event_json);
        update('pubkey', row.pubkey);
      }
    } finally {
      update('authors', row.authors);
      update('event_json', row.event_json);
      update('pubkey', row.pubkey);
    }
    expect(t.errors).toEqual([]);
    expect((await (await t.app.request(`/api/verify?hash=${signed.hash}`)).json()).verified).toBe(true);
  });

  it('never serves bytes whose SHA-256 is not the hash: 410 FILE_ALTERED, and verify says why', async () => {
    const path = join(t.dir, 'files', 'documents', `${signed.hash}.pdf`);
    const original = await readFile(path);
    const altered = Buffer.from(original);
    altered[100] = (altered[100] ?? 0) ^ 0x01;
    try {
      await writeFile(path, altered);
      for (const url of [`/${signed.hash}`, `/${signed.hash}.pdf`, `/documents/${signed.hash}.pdf`]) {
        const response = await t.app.request(url);
        expect(response.status, url).toBe(410);
        expect(response.headers.get('Content-Type'), url).toContain('application/json');
        expect(response.headers.get('Cache-Control'), url).toBe('no-store');
        const body = await response.json();
        expect(body).toMatchObject({
          success: false,
          error: 'FILE_ALTERED',
          hash: signed.hash,
          verify: `${BASE_URL}/verify?hash=${signed.hash}`,
          verify_api: `${BASE_URL}/api/verify?hash=${signed.hash}`,
        });
        expect(body.message).toContain(`\`${signed.hash}\``);
      }
      const body = await (await t.app.request(`/api/verify?hash=${signed.hash}`)).json();
      expect(body.verified).toBe(false);
      expect(body.checks).toMatchObject({ fields: true, file: false });
      expect(body.reasons).toEqual([
        `The stored file's bytes do not match the hash: their SHA-256 is \`${sha256(altered)}\` (${altered.length} bytes).`,
      ]);
      await rm(path);
      expect((await t.app.request(`/${signed.hash}`)).status).toBe(410);
      expect((await (await t.app.request(`/api/verify?hash=${signed.hash}`)).json()).reasons).toEqual([
        `The stored file \`documents/${signed.hash}.pdf\` is missing.`,
      ]);
    } finally {
      await writeFile(path, original);
    }
    const served = await t.app.request(`/${signed.hash}`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(original)).toBe(true);
    expect((await (await t.app.request(`/api/verify?hash=${signed.hash}`)).json()).verified).toBe(true);
  });

  it('refuses the event pages of a record whose stored event no longer verifies (410 RECORD_ALTERED)', async () => {
    const { event_json: original } = t.records.db
      .prepare('SELECT event_json FROM signed_files WHERE hash = ?')
      .get(signed.hash) as { event_json: string };
    const event = JSON.parse(original);
    const update = t.records.db.prepare('UPDATE signed_files SET event_json = ? WHERE hash = ?');
    try {
      update.run(JSON.stringify({ ...event, content: '“Forged” by Mallory Forger' }), signed.hash);
      for (const url of [`/events/${signed.hash}/`, `/events/${signed.hash}/index.json`]) {
        const response = await t.app.request(url);
        expect(response.status, url).toBe(410);
        const body = await response.json();
        expect(body).toMatchObject({
          success: false,
          error: 'RECORD_ALTERED',
          hash: signed.hash,
          verify: `${BASE_URL}/verify?hash=${signed.hash}`,
          verify_api: `${BASE_URL}/api/verify?hash=${signed.hash}`,
        });
        expect(body.message).toContain('event id does not match');
      }
    } finally {
      update.run(original, signed.hash);
    }
    expect((await t.app.request(`/events/${signed.hash}/`)).status).toBe(200);
  });
});

/** The filesystem store, counting how often a file is read whole (instrumentation, not a stand-in). */
class CountingStorage extends FilesystemStorage {
  reads = 0;
  override async stream(key: string) {
    this.reads++;
    return super.stream(key);
  }
}

describe('GET /api/verify on a settled file', () => {
  it('reuses its check while the stored file’s stamp holds, and sees a change to the file alone', async () => {
    const filesDir = await mkdtemp(join(tmpdir(), 'siegel-verify-files-'));
    // Times count as settled at once here (the service waits 2 s), so answers are reused from the start.
    const storage = new CountingStorage(filesDir, { racyVersionMs: 0 });
    const t = await makeTestApp({ storage });
    try {
      const signed = await (
        await signRequest(t.app, uploadForm('a.gif', await readFixture('gif-author.gif')))
      ).json();
      const url = `/api/verify?hash=${signed.hash}`;
      const path = join(filesDir, 'documents', `${signed.hash}.gif`);
      // Dated a minute back, so that the write below cannot share its times (the kernel stamps them at its
      // clock tick: two writes within one would).
      await utimes(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      for (let i = 0; i < 3; i++) expect((await (await t.app.request(url)).json()).verified).toBe(true);
      expect(storage.reads).toBe(1);
      // Same size, changed in place, no database write: only the file's stamp tells.
      const original = await readFile(path);
      const altered = Buffer.from(original);
      altered[20] = (altered[20] ?? 0) ^ 0x01;
      await writeFile(path, altered);
      const body = await (await t.app.request(url)).json();
      expect(body.verified).toBe(false);
      expect(body.checks.file).toBe(false);
      expect(storage.reads).toBe(2);
      await writeFile(path, original);
      expect((await (await t.app.request(url)).json()).verified).toBe(true);
    } finally {
      await t.close();
      await rm(filesDir, { recursive: true, force: true });
    }
  });
});

/**
 * A SQLite store whose stamp learns of other writers late, as a PostgreSQL store's does (by NOTIFY): here
 * never, the worst case of that lag.
 */
class LaggingStore extends SqliteRecordStore {
  readonly changeStampLags = true;
  override readChangeStamp(): string {
    return 'still';
  }
}

describe('GET /api/verify on a store whose stamp lags other instances', () => {
  it('never reuses "not signed here": a file another instance signs is found at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'siegel-verify-lag-'));
    const records = new LaggingStore(join(dir, 'siegel.sqlite'));
    const other = await makeTestApp({ records: new SqliteRecordStore(join(dir, 'siegel.sqlite')) });
    const t = await makeTestApp({ records, storage: new FilesystemStorage(join(dir, 'files')) });
    try {
      const bytes = await readFixture('gif-author.gif');
      const url = `/api/verify?hash=${sha256(bytes)}`;
      expect((await t.app.request(url)).status).toBe(404);
      // "Another instance" signs it: same database, its own connection; this store's stamp has not moved.
      const signed = await signRequest(other.app, uploadForm('a.gif', bytes));
      expect(signed.status).toBe(200);
      const now = await t.app.request(url);
      expect(now.status).toBe(200);
    } finally {
      await t.close();
      await other.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
