// Issue 22, acceptance 3 (M5) and 5 (L3, L9), with a real relay process and real `siegel-bunker` processes:
// no string in a non-`--dev` bunker's log authenticates anything; an unused URI expires; a request replayed
// after a restart is not signed again, one dated far ahead is dropped; a flood of dropped events writes a
// summary, not a line each.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BunkerSigner, parseBunkerInput } from 'nostr-tools/nip46';
import { SimplePool } from 'nostr-tools/pool';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callBunker, type RunningBunker, startBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { answered, makeStrangerFlood, nip46Request, sendFlood } from '../support/nip46-flood.js';
import { type RunningRelay, startRelay } from '../support/relay-process.js';

// Timeouts (docs/testing.md): bunker restarts and NIP-46 round trips: 14 s alone, 21 s among parallel files
vi.setConfig({ testTimeout: 90_000 });

let relay: RunningRelay;
const dirs: string[] = [];
const pool = new SimplePool();
const signers: BunkerSigner[] = [];
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  relay = await startRelay();
});

afterAll(async () => {
  for (const signer of signers) await signer.close();
  pool.destroy();
  await relay?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A data directory that outlives one bunker process (removed after all tests). */
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'siegel-hardening-'));
  dirs.push(dir);
  return dir;
}

/** A new connection URI of `default`; `expiresAt`: when the bunker says it expires (Unix seconds). */
async function mint(
  bunker: RunningBunker,
): Promise<{ uri: string; pubkey: string; secret: string; expiresAt: number }> {
  const made = await callBunker(bunker.url, 'POST', '/api/nip46/uri', {
    token: bunker.adminToken,
    body: { key: 'default' },
  });
  expect(made.status).toBe(201);
  const { uri, expires_at } = (await made.json()) as { uri: string; expires_at: number };
  const pointer = await parseBunkerInput(uri);
  if (!pointer?.secret) throw new Error(`cannot parse ${uri}`);
  return { uri, pubkey: pointer.pubkey, secret: pointer.secret, expiresAt: expires_at };
}

async function stats(bunker: RunningBunker): Promise<{
  decryptions: { strangers: number };
  dropped: Record<'stranger' | 'overBudget' | 'undecryptable' | 'duplicate' | 'stale', number>;
}> {
  const res = await callBunker(bunker.url, 'GET', '/api/nip46/stats', { token: bunker.adminToken });
  return (await res.json()) as {
    decryptions: { strangers: number };
    dropped: Record<'stranger' | 'overBudget' | 'undecryptable' | 'duplicate' | 'stale', number>;
  };
}

/**
 * `GET /api/keys` with `token`, from the loopback address 127.0.0.`n`: each candidate from its own
 * address, so that the bunker's throttle of wrong tokens (per address) never answers for the token.
 */
function statusWithToken(url: string, token: string, n: number): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path: '/api/keys',
        localAddress: `127.0.${Math.floor(n / 250)}.${(n % 250) + 2}`,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('no authenticating string in the logs (issue 22, M5)', () => {
  it('tries every token-like string of a non-dev log as a NIP-46 secret and a Bearer token: none works', async () => {
    const bunker = await startBunker({
      dataDir: await dataDir(),
      args: ['--relay', relay.url, '--print-uri'],
    });
    try {
      // Everything that used to print or log a secret: URIs at start (asked for, but stdout is no
      // terminal), URIs minted, a client connecting and signing, wrong tokens.
      expect(bunker.output()).toContain('--print-uri prints only on a terminal');
      const first = await mint(bunker);
      const pointer = await parseBunkerInput(first.uri);
      if (!pointer) throw new Error('no pointer');
      const client = BunkerSigner.fromBunker(generateSecretKey(), pointer, { pool });
      signers.push(client);
      await client.connect();
      await client.signEvent({ kind: 1063, created_at: now(), tags: [], content: 'logged?' });
      expect(await statusWithToken(bunker.url, 'not-the-token-at-all-0123', 0)).toBe(401);
    } finally {
      await bunker.stop();
    }
    const log = bunker.output();
    const candidates = [...new Set(log.match(/[A-Za-z0-9+/_=-]{16,}/g) ?? [])];
    // (Pubkeys and npubs at least: public, and tried all the same.)
    expect(candidates.length).toBeGreaterThan(0);
    expect(log).not.toContain(bunker.apiToken);

    // The same bunker (same data directory, same tokens) again, to try them on.
    const again = await startBunker({
      dataDir: bunker.dataDir,
      args: ['--relay', relay.url],
      env: {
        BUNKER_API_TOKEN: bunker.apiToken,
        BUNKER_ADMIN_TOKEN: bunker.adminToken,
        BUNKER_PASSPHRASE: bunker.passphrase,
      },
    });
    try {
      // As Bearer tokens: none is accepted; the real one, tried the same way, is (the check can fail).
      for (const [i, candidate] of candidates.entries()) {
        expect(await statusWithToken(again.url, candidate, i + 1), candidate).toBe(401);
      }
      expect(await statusWithToken(again.url, again.apiToken, candidates.length + 1)).toBe(200);

      // As NIP-46 secrets for a fresh URI: each is read (within the budget), none gets an answer; the
      // URI's real secret, sent the same way, does.
      const fresh = await mint(again);
      const before = await stats(again);
      for (const candidate of candidates.slice(0, 40)) {
        const event = await nip46Request(generateSecretKey(), fresh.pubkey, {
          id: 'c',
          method: 'connect',
          params: [fresh.pubkey, candidate],
        });
        expect(await answered(relay.url, event, fresh.pubkey, 1500), candidate).toBe(false);
      }
      const after = await stats(again);
      expect(after.decryptions.strangers - before.decryptions.strangers).toBe(
        Math.min(candidates.length, 40),
      );
      const real = await nip46Request(generateSecretKey(), fresh.pubkey, {
        id: 'r',
        method: 'connect',
        params: [fresh.pubkey, fresh.secret],
      });
      expect(await answered(relay.url, real, fresh.pubkey)).toBe(true);
    } finally {
      await again.stop();
    }
  });

  it('refuses an unused secret after its expiry (`--uri-expiry`), and lists it as pending until then', async () => {
    const bunker = await startBunker({ args: ['--relay', relay.url, '--uri-expiry', '0.05'] });
    try {
      const uri = await mint(bunker);
      const listed = await callBunker(bunker.url, 'GET', '/api/nip46/connections', {
        token: bunker.adminToken,
      });
      const { pending } = (await listed.json()) as { pending: { signer: string; expires_at: number }[] };
      expect(pending.map((p) => p.signer)).toEqual([uri.pubkey]);
      expect(JSON.stringify(pending)).not.toContain(uri.secret);
      // Until the moment the bunker gave (its clock is this machine's): `--uri-expiry 0.05` is 3 s at most.
      await eventually(() => Date.now() >= uri.expiresAt * 1000, 15_000, 50);
      const event = await nip46Request(generateSecretKey(), uri.pubkey, {
        id: 'late',
        method: 'connect',
        params: [uri.pubkey, uri.secret],
      });
      expect(await answered(relay.url, event, uri.pubkey)).toBe(false);
      const later = await callBunker(bunker.url, 'GET', '/api/nip46/connections', {
        token: bunker.adminToken,
      });
      expect(await later.json()).toMatchObject({ connections: [], pending: [] });
    } finally {
      await bunker.stop();
    }
  });
});

describe('replays (issue 22, L3)', () => {
  it('does not sign a request again when it is replayed after a restart; drops one dated far ahead', async () => {
    const bunker = await startBunker({ dataDir: await dataDir(), args: ['--relay', relay.url] });
    const env = {
      BUNKER_API_TOKEN: bunker.apiToken,
      BUNKER_ADMIN_TOKEN: bunker.adminToken,
      BUNKER_PASSPHRASE: bunker.passphrase,
    };
    let restarted: RunningBunker | undefined;
    let second: RunningRelay | undefined;
    try {
      const uri = await mint(bunker);
      const clientKey = generateSecretKey();
      const connect = await nip46Request(clientKey, uri.pubkey, {
        id: '1',
        method: 'connect',
        params: [uri.pubkey, uri.secret],
      });
      expect(await answered(relay.url, connect, uri.pubkey)).toBe(true);
      const template = { kind: 1063, created_at: now(), tags: [['x', 'ef'.repeat(32)]], content: 'once' };
      const sign = await nip46Request(clientKey, uri.pubkey, {
        id: '2',
        method: 'sign_event',
        params: [JSON.stringify(template)],
      });
      expect(await answered(relay.url, sign, uri.pubkey)).toBe(true);
      const audited = async () =>
        (await readFile(join(bunker.dataDir, 'audit.log'), 'utf8')).trim().split('\n').length;
      expect(await audited()).toBe(1);

      await bunker.stop();
      // A second relay, which never saw the request (a relay drops an event id it has seen): the replay
      // comes through it.
      second = await startRelay();
      restarted = await startBunker({
        dataDir: bunker.dataDir,
        args: ['--relay', relay.url, '--relay', second.url],
        env,
      });
      // The client is still known after the restart: a new ping is answered through either relay (so the
      // bunker listens again; each try a new event, since a relay forwards an event id once)…
      let n = 10;
      const pingThrough = async (url: string) =>
        answered(
          url,
          await nip46Request(clientKey, uri.pubkey, { id: String(n++), method: 'ping', params: [] }),
          uri.pubkey,
          2000,
        );
      await expect.poll(() => pingThrough(relay.url), { timeout: 20_000 }).toBe(true);
      await expect.poll(() => pingThrough(second?.url ?? ''), { timeout: 20_000 }).toBe(true);
      // …but the old sign_event, sent again, is not signed again.
      const received = (await stats(restarted)).dropped.duplicate;
      expect(await answered(second.url, sign, uri.pubkey)).toBe(false);
      expect(await audited()).toBe(1);
      expect((await stats(restarted)).dropped.duplicate).toBe(received + 1);

      // Dated two minutes ahead: dropped (the window ahead is 30 s).
      const ahead = await nip46Request(
        clientKey,
        uri.pubkey,
        { id: '4', method: 'ping', params: [] },
        now() + 120,
      );
      expect(await answered(relay.url, ahead, uri.pubkey)).toBe(false);
      expect((await stats(restarted)).dropped.stale).toBe(1);
    } finally {
      await restarted?.stop();
      await bunker.stop();
      await second?.stop();
    }
  });
});

describe('dropped events in the log (issue 22, L9)', () => {
  it('summarises 500 dropped events in at most two lines, counting every one', async () => {
    const bunker = await startBunker({ args: ['--relay', relay.url] });
    try {
      const uri = await mint(bunker);
      const client = generateSecretKey();
      const connect = await nip46Request(client, uri.pubkey, {
        id: '1',
        method: 'connect',
        params: [uri.pubkey, uri.secret],
      });
      expect(await answered(relay.url, connect, uri.pubkey)).toBe(true);
      expect(getPublicKey(client)).toMatch(/^[0-9a-f]{64}$/);
      const flood = await makeStrangerFlood({ targets: [uri.pubkey], count: 500, authors: 20 });
      await sendFlood(relay.url, flood.events, { perSecond: 500 });
      await expect.poll(async () => (await stats(bunker)).dropped.stranger, { timeout: 20_000 }).toBe(500);
    } finally {
      await bunker.stop();
    }
    const lines = bunker
      .output()
      .split('\n')
      .filter((line) => line.includes('NIP-46'));
    const summaries = lines.filter((line) => line.includes('NIP-46: dropped'));
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries.length).toBeLessThanOrEqual(2);
    const total = summaries.reduce((sum, line) => sum + Number(/dropped (\d+) event/.exec(line)?.[1]), 0);
    expect(total).toBe(500);
    // Nothing else about them: besides the start line, one line for the client that connected.
    expect(lines.filter((line) => !summaries.includes(line))).toEqual([
      expect.stringContaining('NIP-46 remote signer on'),
      expect.stringContaining('NIP-46 client'),
    ]);
  });
});
