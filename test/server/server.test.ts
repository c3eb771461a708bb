import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { verifyEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callBunker, type RunningBunker, startBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { type RunningServer, SERVER_FIXTURES, signOverHttp, startServer } from './server-process.js';

// Timeouts (docs/testing.md): server and bunker processes per test: 12 s among parallel files
vi.setConfig({ testTimeout: 60_000 });

interface Expected {
  signs: Record<string, { mime_type: string; authors: string[]; title: string | null }>;
  rejects: Record<string, { status: number; error: string }>;
}
const expected = JSON.parse(
  await readFile(new URL('../../server/fixtures/expected.json', import.meta.url), 'utf8'),
) as Expected;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

async function allFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String);
}

describe('the server over HTTP against a real bunker process', () => {
  let bunker: RunningBunker;
  let server: RunningServer;
  const signed = new Map<string, { hash: string; eventId: string; bytes: Buffer }>();

  beforeAll(async () => {
    bunker = await startBunker();
    server = await startServer({
      bunker,
      env: { MAX_UPLOAD_BYTES: String(2 * 1024 * 1024), SIGN_RATE_LIMIT: '1000' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await bunker?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('signs every fixture that names an author: file bytes, event page, event and verify API agree', async () => {
    for (const [name, want] of Object.entries(expected.signs)) {
      const bytes = await readFile(join(SERVER_FIXTURES, name));
      const { status, body } = await signOverHttp(server, name, bytes);
      expect(status, `${name}: ${JSON.stringify(body)}`).toBe(200);
      const hash = sha256(bytes);
      expect(body.hash).toBe(hash);
      expect(body.metadata.authors).toEqual(want.authors);
      expect(body.metadata.title).toBe(want.title);
      // urls.file returns the same bytes.
      const file = Buffer.from(await (await fetch(body.urls.file)).arrayBuffer());
      expect(sha256(file), name).toBe(hash);
      // The event verifies with nostr-tools, was signed by the bunker's key, and its x is the hash.
      expect(verifyEvent(body.event)).toBe(true);
      expect(body.event.pubkey).toBe(bunker.pubkey);
      expect(body.event.tags.find((tag: string[]) => tag[0] === 'x')?.[1]).toBe(hash);
      // The static page holds author, title, hash, event and JSON-LD.
      const page = await (await fetch(body.urls.static_page)).text();
      for (const author of want.authors) expect(page, name).toContain(escapeHtml(author));
      if (want.title !== null) expect(page, name).toContain(escapeHtml(want.title));
      expect(page).toContain(hash);
      expect(page).toContain(body.event.id);
      expect(page).toContain(body.event.sig);
      const jsonLd = JSON.parse(
        /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? 'null',
      );
      expect(jsonLd.sha256).toBe(hash);
      expect(jsonLd.author.map((a: { name: string }) => a.name)).toEqual(want.authors);
      // The verify API reports it verified.
      const verify = await (await fetch(`${server.url}/api/verify?hash=${hash}`)).json();
      expect(verify).toMatchObject({
        verified: true,
        hash,
        event: { id: body.event.id, pubkey: bunker.pubkey },
      });
      signed.set(name, { hash, eventId: body.event.id, bytes });
    }
  });

  it('answers HEAD /{sha256} (Blossom BUD-01) with the headers of GET and no body', async () => {
    const { hash, bytes } = signed.get('png-author.png') ?? { hash: '', bytes: Buffer.alloc(0) };
    const head = await fetch(`${server.url}/${hash}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('image/png');
    expect(Number(head.headers.get('content-length'))).toBe(bytes.length);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const unknown = await fetch(`${server.url}/${'0'.repeat(64)}`, { method: 'HEAD' });
    expect(unknown.status).toBe(404);
  });

  it('answers every bad input with a 4xx, never a 500, and keeps serving', async () => {
    for (const [name, want] of Object.entries(expected.rejects)) {
      const { status, body } = await signOverHttp(server, name, await readFile(join(SERVER_FIXTURES, name)));
      expect(status, `${name}: ${JSON.stringify(body)}`).toBe(want.status);
      expect(body).toMatchObject({ success: false, error: want.error });
    }
    const noField = new FormData();
    noField.append('nothing', 'here');
    const missing = await fetch(`${server.url}/api/sign-image-v2`, {
      method: 'POST',
      body: noField,
      headers: { Authorization: `Bearer ${server.token}` },
    });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toBe('NO_FILE');
    const tooLarge = await signOverHttp(server, 'big.txt', new Uint8Array(3 * 1024 * 1024).fill(0x61));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error).toBe('FILE_TOO_LARGE');
    for (const bad of ['abc', 'z'.repeat(64), '']) {
      expect((await fetch(`${server.url}/api/verify?hash=${bad}`)).status).toBe(400);
    }
    expect(server.child.exitCode).toBeNull();
    expect(server.output()).not.toMatch(/Internal|Error:/);
    const still = await fetch(`${server.url}/api/verify?hash=${signed.get('png-author.png')?.hash}`);
    expect((await still.json()).verified).toBe(true);
  });

  it('answers the same file again with 409 ALREADY_SIGNED and the existing event', async () => {
    const first = signed.get('md-string-author.md');
    const { status, body } = await signOverHttp(server, 'copy.md', first?.bytes ?? Buffer.alloc(0));
    expect(status).toBe(409);
    expect(body).toMatchObject({
      success: false,
      error: 'ALREADY_SIGNED',
      existing_event: { id: first?.eventId },
    });
  });

  it('reports a record whose stored signature was altered as not verified, with the reason', async () => {
    const { hash } = signed.get('jpeg-multi-author.jpg') ?? { hash: '' };
    const db = new DatabaseSync(join(server.dataDir, 'siegel.sqlite'));
    try {
      const row = db.prepare('SELECT event_json FROM signed_files WHERE hash = ?').get(hash) as {
        event_json: string;
      };
      const event = JSON.parse(row.event_json);
      const flipped = `${event.sig[0] === 'a' ? 'b' : 'a'}${event.sig.slice(1)}`;
      db.prepare('UPDATE signed_files SET event_json = ? WHERE hash = ?').run(
        JSON.stringify({ ...event, sig: flipped }),
        hash,
      );
      const body = await (await fetch(`${server.url}/api/verify?hash=${hash}`)).json();
      expect(body.verified).toBe(false);
      expect(body.checks).toMatchObject({ event_id: true, signature: false, hash_tag: true });
      expect(body.reasons.join(' ')).toContain('signature');
      db.prepare('UPDATE signed_files SET event_json = ? WHERE hash = ?').run(row.event_json, hash);
      expect((await (await fetch(`${server.url}/api/verify?hash=${hash}`)).json()).verified).toBe(true);
    } finally {
      db.close();
    }
  });

  it('answers 503 `Key ist gesperrt` when the key is locked mid-way, and stores nothing', async () => {
    const lock = await callBunker(bunker.url, 'POST', `/api/keys/${bunker.keyName}/lock`, {
      token: bunker.adminToken,
    });
    expect(lock.ok).toBe(true);
    const bytes = Buffer.from(
      '---\nauthor: Locked Out\ntitle: Später\n---\nWritten while the key was locked.\n',
    );
    const hash = sha256(bytes);
    const { status, body } = await signOverHttp(server, 'locked.md', bytes);
    expect(status).toBe(503);
    expect(body.success).toBe(false);
    expect(body.message.split('\n')[0]).toBe('Key ist gesperrt');
    expect((await fetch(`${server.url}/api/verify?hash=${hash}`)).status).toBe(404);
    expect((await fetch(`${server.url}/${hash}`)).status).toBe(404);
    expect((await allFiles(server.dataDir)).filter((path) => path.includes(hash))).toEqual([]);
    const unlock = await callBunker(bunker.url, 'POST', `/api/keys/${bunker.keyName}/unlock`, {
      token: bunker.adminToken,
      body: { passphrase: bunker.passphrase },
    });
    expect(unlock.ok).toBe(true);
    const retry = await signOverHttp(server, 'locked.md', bytes);
    expect(retry.status).toBe(200);
    signed.set('locked.md', { hash, eventId: retry.body.event.id, bytes });
  });

  it('keeps every record and file across a restart', async () => {
    expect(await server.stop()).toBe(0);
    server = await startServer({ bunker, dataDir: server.dataDir });
    for (const [name, { hash, eventId, bytes }] of signed) {
      const body = await (await fetch(`${server.url}/api/verify?hash=${hash}`)).json();
      expect(body, name).toMatchObject({ verified: true, event: { id: eventId } });
      const file = Buffer.from(await (await fetch(`${server.url}/${hash}`)).arrayBuffer());
      expect(file.equals(bytes), name).toBe(true);
    }
  });

  it('answers 503 when the bunker is down, stores nothing, and keeps verifying', async () => {
    const down = await startBunker();
    await down.stop();
    const orphanServer = await startServer({ bunker: down });
    try {
      const bytes = Buffer.from('---\nauthor: Nobody Home\n---\nThe bunker is gone.\n');
      const { status, body } = await signOverHttp(orphanServer, 'down.md', bytes);
      expect(status).toBe(503);
      expect(body).toMatchObject({
        success: false,
        error: 'BUNKER_UNAVAILABLE',
        bunker_error: 'bunker_unreachable',
      });
      // The uploader learns the bunker is down, not where on the server BUNKER_URL was set.
      expect(body.message).toBe(
        `Bunker not reachable at BUNKER_URL \`${down.url}\` (ECONNREFUSED). Is it running?`,
      );
      // The operator does: the start-up check prints where BUNKER_URL came from (once its retries are spent).
      await eventually(() => /cannot sign yet/.test(orphanServer.output()), 20_000, 100).catch(() => {
        // not printed in time: the assertion below says what the output held instead
      });
      expect(orphanServer.output()).toContain(
        `The bunker cannot sign yet: Bunker not reachable at BUNKER_URL \`${down.url}\` (ECONNREFUSED). Is it running?\nBUNKER_URL is set in the environment`,
      );
      expect((await allFiles(orphanServer.dataDir)).filter((path) => path.includes(sha256(bytes)))).toEqual(
        [],
      );
      expect((await fetch(`${orphanServer.url}/api/verify?hash=${sha256(bytes)}`)).status).toBe(404);
    } finally {
      await orphanServer.stop();
      await rm(orphanServer.dataDir, { recursive: true, force: true });
    }
  });

  it('prints a dev token with --dev that signs', async () => {
    const dev = await startServer({ bunker, dev: true });
    try {
      expect(dev.output()).toContain(`${dev.url}/tools/sign`);
      const bytes = Buffer.from('---\nauthor: Dev Person\n---\nDev mode.\n');
      expect((await signOverHttp(dev, 'dev.md', bytes)).status).toBe(200);
      expect(
        (await signOverHttp(dev, 'dev2.md', Buffer.from('---\nauthor: Dev Person\n---\nOther.\n'), 'wrong'))
          .status,
      ).toBe(401);
    } finally {
      await dev.stop();
      await rm(dev.dataDir, { recursive: true, force: true });
    }
  });
});

describe('the per-client rate limit over HTTP', () => {
  let bunker: RunningBunker;
  let server: RunningServer;

  beforeAll(async () => {
    bunker = await startBunker();
    server = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '2' } });
  });
  afterAll(async () => {
    await server?.stop();
    await bunker?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('answers 429 RATE_LIMITED with Retry-After past SIGN_RATE_LIMIT uploads a minute, and stores nothing', async () => {
    const upload = (n: number) =>
      signOverHttp(server, `rate-${n}.md`, Buffer.from(`---\nauthor: Rita Rate\n---\nUpload ${n}.\n`));
    expect((await upload(1)).status).toBe(200);
    expect((await upload(2)).status).toBe(200);
    const third = Buffer.from('---\nauthor: Rita Rate\n---\nUpload 3.\n');
    const form = new FormData();
    form.append('file', new Blob([third]), 'rate-3.md');
    const limited = await fetch(`${server.url}/api/sign-image-v2`, {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${server.token}` },
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ success: false, error: 'RATE_LIMITED' });
    expect((await fetch(`${server.url}/api/verify?hash=${sha256(third)}`)).status).toBe(404);
    // Verifying stays open to everyone: the limit is on uploads only.
    expect((await fetch(`${server.url}/api/verify?hash=${'0'.repeat(64)}`)).status).toBe(404);
    expect(server.child.exitCode).toBeNull();
  });
});
