// Issue 40, item 3 (acceptance 4): a tampered file record's verify answer names its `file.*` code, the code of
// the rule book's judgeFileEvent, and the server's verify page shows it. Against the real server process (and a
// real bunker) over HTTP, the record edited from outside with node:sqlite, the stored file on disk. The page
// is rendered on the server, so its HTML is read as it is sent (no browser needed).
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { type RunningServer, signFixture, startServer } from './server-process.js';

interface Signed {
  hash: string;
  fileKey: string;
  eventJson: string;
  event: {
    id: string;
    pubkey: string;
    sig: string;
    kind: number;
    created_at: number;
    content: string;
    tags: string[][];
  };
}

describe('verify answers name the file.* code of each tampering (real server process)', () => {
  let bunker: RunningBunker;
  let server: RunningServer;
  let db: DatabaseSync;
  let png: Signed;
  let gif: Signed;

  const sign = async (fixture: string): Promise<Signed> => {
    const { hash, fileKey, eventJson } = await signFixture(server, db, fixture);
    return { hash, fileKey, eventJson, event: JSON.parse(eventJson) };
  };

  beforeAll(async () => {
    bunker = await startBunker();
    server = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '1000' } });
    db = new DatabaseSync(join(server.dataDir, 'siegel.sqlite'));
    png = await sign('png-author.png');
    gif = await sign('gif-author.gif');
  });
  afterAll(async () => {
    db?.close();
    await server?.stop();
    await bunker?.stop();
  });

  const get = (path: string) => fetch(`${server.url}${path}`);
  const codesOf = (problems: Array<{ code: string }>) => [
    ...new Set(problems.map((problem) => problem.code)),
  ];

  /** The verify API and the verify page of `hash`: the verdict and the codes each gives. */
  async function verdictOf(hash: string) {
    const response = await get(`/api/verify?hash=${hash}`);
    const body = await response.json();
    const page = await (await get(`/verify?hash=${hash}`)).text();
    const attributes = /<section id="result"[^>]*data-verdict="([a-z_]+)" data-codes="([a-z_. ]*)"/.exec(
      page,
    );
    const listed = [...page.matchAll(/<code class="code" title="[^"]*">(file\.[a-z_]+)<\/code>/g)].map(
      (match) => match[1],
    );
    return {
      status: response.status,
      api: [body.verdict, ...codesOf(body.problems)],
      page: [attributes?.[1], ...(attributes?.[2] ?? '').split(' ').filter(Boolean)],
      listed: [...new Set(listed)],
      body,
    };
  }

  /** Store `eventJson` as png's event, expect `codes` from the API and the page, then put it back. */
  async function withEvent(eventJson: string, codes: string[]): Promise<void> {
    expect((await verdictOf(png.hash)).api).toEqual(['valid']); // an answer the server may reuse
    const update = db.prepare('UPDATE signed_files SET event_json = ? WHERE hash = ?');
    update.run(eventJson, png.hash);
    try {
      const seen = await verdictOf(png.hash);
      expect(seen.status).toBe(200);
      expect(seen.body.verified).toBe(false);
      expect(seen.api).toEqual(['invalid', ...codes]);
      expect(seen.page).toEqual(['invalid', ...codes]);
      expect(seen.listed).toEqual(codes);
    } finally {
      update.run(png.eventJson, png.hash);
    }
    expect((await verdictOf(png.hash)).api).toEqual(['valid']);
  }

  it('a signed file: valid, no problems, no codes on the page', async () => {
    const seen = await verdictOf(png.hash);
    expect(seen).toMatchObject({ status: 200, api: ['valid'], page: ['valid'], listed: [] });
    expect(seen.body.problems).toEqual([]);
  });

  it('a wrong signature: file.signature (and the event pages refuse it with the same code)', async () => {
    const { event } = png;
    const sig = `${event.sig[0] === 'a' ? 'b' : 'a'}${event.sig.slice(1)}`;
    const update = db.prepare('UPDATE signed_files SET event_json = ? WHERE hash = ?');
    await withEvent(JSON.stringify({ ...event, sig }), ['file.signature']);
    update.run(JSON.stringify({ ...event, sig }), png.hash);
    try {
      const refused = await get(`/events/${png.hash}/index.json`);
      expect(refused.status).toBe(410);
      expect(await refused.json()).toMatchObject({
        error: 'RECORD_ALTERED',
        verdict: 'invalid',
        problems: [{ code: 'file.signature', severity: 'error' }],
      });
    } finally {
      update.run(png.eventJson, png.hash);
    }
  });

  it('an altered event: file.event_id, and the stored author no longer what it states, file.record', async () => {
    const content = png.event.content.replace(/by .*/, 'by Mallory Forger');
    await withEvent(JSON.stringify({ ...png.event, content }), ['file.event_id', 'file.record']);
  });

  it('another file’s valid event (a wrong x tag): file.hash, each column that differs, and no file at its key', async () => {
    // The record is read as its event states it: a GIF, at `documents/{hash}.gif`, where nothing is stored.
    await withEvent(gif.eventJson, ['file.hash', 'file.record', 'file.unreadable']);
  });

  it('a valid event of another kind: file.kind, and the columns it does not match, file.record', async () => {
    // Signed by another key (the bunker's signs only file events): a note with the file's `x` tag.
    const note = finalizeEvent(
      { kind: 1, created_at: png.event.created_at, tags: png.event.tags, content: png.event.content },
      generateSecretKey(),
    );
    await withEvent(JSON.stringify(note), ['file.kind', 'file.record']);
  });

  it('something that is not an event: file.malformed, file.hash, file.record', async () => {
    await withEvent('"not an event"', ['file.malformed', 'file.hash', 'file.record']);
  });

  it('a stored column: file.record', async () => {
    const update = db.prepare('UPDATE signed_files SET authors = ? WHERE hash = ?');
    const original = (
      db.prepare('SELECT authors FROM signed_files WHERE hash = ?').get(png.hash) as {
        authors: string;
      }
    ).authors;
    update.run(JSON.stringify(['Mallory Forger']), png.hash);
    try {
      const seen = await verdictOf(png.hash);
      expect([seen.api, seen.page, seen.listed]).toEqual([
        ['invalid', 'file.record'],
        ['invalid', 'file.record'],
        ['file.record'],
      ]);
      expect(seen.body.problems[0].message).toMatch(/^`authors` does not match the signed event/);
    } finally {
      update.run(original, png.hash);
    }
  });

  it('the stored bytes: file.bytes when replaced, file.unreadable (an outage) when gone', async () => {
    const path = join(server.dataDir, 'files', png.fileKey);
    const bytes = await readFile(path);
    await writeFile(path, Buffer.concat([bytes, Buffer.from('x')]));
    try {
      const seen = await verdictOf(png.hash);
      expect([seen.api, seen.page]).toEqual([
        ['invalid', 'file.bytes'],
        ['invalid', 'file.bytes'],
      ]);
    } finally {
      await writeFile(path, bytes);
    }
    await rename(path, `${path}.aside`);
    try {
      const seen = await verdictOf(png.hash);
      expect([seen.body.verified, seen.api, seen.page]).toEqual([
        false,
        ['not_found', 'file.unreadable'],
        ['not_found', 'file.unreadable'],
      ]);
    } finally {
      await rename(`${path}.aside`, path);
    }
    expect((await verdictOf(png.hash)).api).toEqual(['valid']);
  });

  it('a hash nobody signed: 404, not_found, file.not_found', async () => {
    const seen = await verdictOf('0'.repeat(64));
    expect([seen.status, seen.api, seen.page, seen.listed]).toEqual([
      404,
      ['not_found', 'file.not_found'],
      ['not_found', 'file.not_found'],
      ['file.not_found'],
    ]);
  });
});
