import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createGermanError, LocalKeySigner, type NostrEvent, SiegelError } from '@siegel/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../src/storage/store-errors.js';
import { BASE_URL, makeTestApp, readFixture, signRequest, uploadForm } from './test-app.js';

// Timeouts (docs/testing.md): each case runs the whole sign route (analysis in a worker thread, SQLite, durable
// writes): 10 s for the file alone, more on a loaded machine
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let t: Awaited<ReturnType<typeof makeTestApp>> | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function listFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true })).map(String);
  } catch {
    return [];
  }
}

describe('sign API errors', () => {
  it('answers 401 without a token, with a wrong token, and when no token is configured', async () => {
    t = await makeTestApp();
    const form = () =>
      uploadForm('md-string-author.md', new TextEncoder().encode('---\nauthor: Ann Lee\n---\n'));
    for (const token of ['', 'wrong-token', 'test-sign-token-but-longer']) {
      const response = await signRequest(t.app, form(), token);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ success: false, error: 'UNAUTHORIZED' });
    }
    const closed = await makeTestApp({ signTokens: [] });
    expect((await signRequest(closed.app, form())).status).toBe(401);
    await closed.close();
  });

  it('answers 400 NO_FILE for a missing field, a non-multipart body and a broken multipart body', async () => {
    t = await makeTestApp();
    const form = new FormData();
    form.append('other', 'x');
    expect(await (await signRequest(t.app, form)).json()).toMatchObject({ success: false, error: 'NO_FILE' });
    const json = await t.app.request('/api/sign-image-v2', {
      method: 'POST',
      body: '{"file":"x"}',
      headers: { Authorization: 'Bearer test-sign-token', 'Content-Type': 'application/json' },
    });
    expect(json.status).toBe(400);
    const broken = await t.app.request('/api/sign-image-v2', {
      method: 'POST',
      body: '--nope\r\ngarbage',
      headers: {
        Authorization: 'Bearer test-sign-token',
        'Content-Type': 'multipart/form-data; boundary=xyz',
      },
    });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error).toBe('NO_FILE');
  });

  it('accepts the field `image` as well as `file`', async () => {
    t = await makeTestApp();
    const response = await signRequest(
      t.app,
      uploadForm('a.md', new TextEncoder().encode('---\nauthor: Ann Lee\n---\nx'), 'image'),
    );
    expect(response.status).toBe(200);
  });

  it('answers 413 FILE_TOO_LARGE over MAX_UPLOAD_BYTES, with and without Content-Length', async () => {
    t = await makeTestApp({ maxUploadBytes: 1000 });
    const big = new Uint8Array(5000).fill(0x61);
    const response = await signRequest(t.app, uploadForm('big.txt', big));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ success: false, error: 'FILE_TOO_LARGE' });
    // Just over the file limit but within the multipart allowance: still refused by the file-size check.
    const slightly = await signRequest(t.app, uploadForm('slightly.txt', new Uint8Array(1001).fill(0x61)));
    expect(slightly.status).toBe(413);
  });

  it('answers 409 ALREADY_SIGNED with the existing event, and keeps one record', async () => {
    t = await makeTestApp();
    const bytes = await readFixture('png-author.png');
    const first = await (await signRequest(t.app, uploadForm('png-author.png', bytes))).json();
    const again = await signRequest(t.app, uploadForm('other-name.png', bytes));
    expect(again.status).toBe(409);
    const body = await again.json();
    expect(body).toMatchObject({
      success: false,
      error: 'ALREADY_SIGNED',
      existing_event: first.event,
      urls: { verify: `${BASE_URL}/verify?hash=${first.hash}`, verify_api: first.urls.verify_api },
    });
    expect(body.urls).toEqual(first.urls);
    const count = t.records.db.prepare('SELECT count(*) AS n FROM signed_files').get() as { n: number };
    expect(count.n).toBe(1);
  });

  it('signs the same bytes sent concurrently exactly once', async () => {
    t = await makeTestApp();
    const bytes = await readFixture('gif-author.gif');
    const app = t.app;
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () =>
        signRequest(app, uploadForm('gif-author.gif', bytes)).then((r) => r.status),
      ),
    );
    expect(statuses.sort()).toEqual([200, 409, 409, 409, 409]);
  });

  it('answers 429 RATE_LIMITED past the per-client limit', async () => {
    t = await makeTestApp({ rateLimitPerMinute: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await signRequest(t.app, uploadForm('x.zip', new Uint8Array([0x50, 0x4b, 3, 4])))).status,
      );
    }
    expect(statuses).toEqual([415, 415, 429, 429]);
    const limited = await signRequest(t.app, uploadForm('x.zip', new Uint8Array([0x50, 0x4b, 3, 4])));
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(limited.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect((await limited.json()).error).toBe('RATE_LIMITED');
  });

  it('answers 503 with the German message when the key is locked, and stores nothing', async () => {
    const locked = {
      getPublicKey: async () => 'ab'.repeat(32),
      signEvents: async () => {
        throw createGermanError('key_locked', 'The key `default` is locked.');
      },
    };
    t = await makeTestApp({ signer: locked });
    const bytes = await readFixture('webp-author.webp');
    const response = await signRequest(t.app, uploadForm('webp-author.webp', bytes));
    expect(response.status).toBe(503);
    const body = await response.json();
    expect(body).toMatchObject({ success: false, error: 'BUNKER_UNAVAILABLE' });
    expect(body.message.split('\n')[0]).toBe('Key ist gesperrt');
    expect(await listFiles(join(t.dir, 'files'))).toEqual([]);
    const count = t.records.db.prepare('SELECT count(*) AS n FROM signed_files').get() as { n: number };
    expect(count.n).toBe(0);
    expect(new SiegelError('key_locked', 'x').code).toBe('key_locked');
  });

  it("answers 422 EVENT_REFUSED with the signer's message when the signer refuses this one event, and stores nothing", async () => {
    t = await makeTestApp({
      signer: {
        getPublicKey: async () => 'ab'.repeat(32),
        signEvents: async () => {
          throw new SiegelError('event_refused', 'The bunker refused the event: `event_too_large`.');
        },
      },
    });
    const bytes = await readFixture('webp-author.webp');
    const response = await signRequest(t.app, uploadForm('webp-author.webp', bytes));
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body).toMatchObject({ success: false, error: 'EVENT_REFUSED', bunker_error: 'event_refused' });
    expect(body.message).toContain('event_too_large');
    expect(await listFiles(join(t.dir, 'files'))).toEqual([]);
  });

  it('answers 502 and stores nothing when the signer returns an event that is not the template it was given, signed by its key', async () => {
    // The same check core's signing run makes of every signer (issue 21): a custom signer, each field.
    const local = new LocalKeySigner('5'.repeat(64));
    const other = new LocalKeySigner('7'.repeat(64));
    const tampers: Array<[string, (event: NostrEvent, byOther: NostrEvent) => NostrEvent]> = [
      ['content', (event) => ({ ...event, content: `${event.content}!` })],
      ['tags', (event) => ({ ...event, tags: event.tags.slice(1) })],
      ['created_at', (event) => ({ ...event, created_at: event.created_at - 1 })],
      ['pubkey', (_event, byOther) => byOther],
      ['sig', (event) => ({ ...event, sig: event.sig.replace(/^./, event.sig[0] === 'a' ? 'b' : 'a') })],
    ];
    const bytes = await readFixture('webp-author.webp');
    for (const [field, tamper] of tampers) {
      await t?.close();
      t = await makeTestApp({
        signer: {
          getPublicKey: () => local.getPublicKey(),
          signEvents: async (templates) => {
            const [event] = await local.signEvents(templates);
            const [byOther] = await other.signEvents(templates);
            return [tamper(event as NostrEvent, byOther as NostrEvent)];
          },
        },
      });
      const response = await signRequest(t.app, uploadForm('webp-author.webp', bytes));
      expect(response.status, field).toBe(502);
      const body = await response.json();
      expect(body, field).toMatchObject({ success: false, error: 'BUNKER_UNAVAILABLE' });
      expect(body.message, field).toContain('does not match what was asked');
      expect(await listFiles(join(t.dir, 'files')), field).toEqual([]);
    }
  });

  // Regression: core's `token_rejected` (a set but wrong BUNKER_API_TOKEN) lost its German line here.
  it('passes every signer error through with its German line: a rejected token too', async () => {
    for (const [code, line] of [
      ['token_missing', 'BUNKER_API_TOKEN nicht gesetzt'],
      ['token_rejected', 'BUNKER_API_TOKEN ungültig'],
      ['key_not_found', 'Key nicht gefunden'],
    ] as const) {
      await t?.close();
      t = await makeTestApp({
        signer: {
          getPublicKey: async () => 'ab'.repeat(32),
          signEvents: async () => {
            throw createGermanError(code, 'The bunker refused.');
          },
        },
      });
      const response = await signRequest(
        t.app,
        uploadForm('webp-author.webp', await readFixture('webp-author.webp')),
      );
      expect(response.status, code).toBe(503);
      const body = await response.json();
      expect(body.message.split('\n')[0], code).toBe(line);
      expect(body.bunker_error, code).toBe(code);
    }
  });

  it('removes stored files again when writing the record fails', async () => {
    t = await makeTestApp();
    const failing = t.records;
    const original = failing.insert.bind(failing);
    failing.insert = async () => {
      throw new Error('disk full');
    };
    const response = await signRequest(
      t.app,
      uploadForm('md.md', new TextEncoder().encode('---\nauthor: Ann Lee\n---\n')),
    );
    expect(response.status).toBe(500);
    expect((await response.json()).message).toBe('Internal error');
    expect((await listFiles(join(t.dir, 'files'))).filter((f) => /\.(md|html|json)$/.test(f))).toEqual([]);
    failing.insert = original;
    t.errors.length = 0;
  });

  it('keeps the stored files when the store went away while the record was written (it may have committed), and the look once its claim ended keeps or removes them as the record says', async () => {
    t = await makeTestApp();
    const app = t;
    const original = app.records.insert.bind(app.records);
    const told: string[] = [];
    app.fileSigner.onUnsettled = (hash) => told.push(hash);
    const stored = async (hash: string) =>
      (await listFiles(join(app.dir, 'files'))).filter(
        (file) => file.includes(hash) && /\.(md|html|json)$/.test(file),
      );
    const sign = async (label: string) => {
      const response = await signRequest(
        app.app,
        uploadForm(`${label}.md`, new TextEncoder().encode(`---\nauthor: Ann Lee\ntitle: ${label}\n---\n`)),
      );
      return { status: response.status, body: await response.json() };
    };
    // Not written: the answer is 503, the files stay until the look, which finds no record and removes them.
    app.records.insert = async () => {
      throw new StoreUnavailableError('Cannot reach PostgreSQL at db:5432 (ECONNRESET)');
    };
    const lost = await sign('lost');
    expect(lost.status).toBe(503);
    expect(lost.body.error).toBe('STORE_UNAVAILABLE');
    const [lostHash] = told;
    expect(lostHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await stored(lostHash as string)).toHaveLength(3);
    expect((await app.fileSigner.removeOrphans([lostHash as string])).removed).toHaveLength(3);
    expect(await stored(lostHash as string)).toEqual([]);
    // Written, its answer lost: the files stay, and the look keeps them with their record.
    app.records.insert = async (record, outbox) => {
      await original(record, outbox);
      throw new StoreUnavailableError('PostgreSQL at db:5432 did not answer within 5000 ms');
    };
    expect((await sign('committed')).status).toBe(503);
    const committed = told[1] as string;
    expect(await app.fileSigner.removeOrphans([committed])).toEqual({ removed: [], held: [] });
    expect(await stored(committed)).toHaveLength(3);
    app.records.insert = original;
    const verified = await app.app.request(`/api/verify?hash=${committed}`);
    expect((await verified.json()).verified).toBe(true);
    expect(told).toHaveLength(2);
  });
});
