// Issue 13, acceptance 3: `siegel-bunker` is a NIP-46 remote signer. nostr-tools' own `BunkerSigner` (not
// ours) connects through a real relay process with a `bunker://` URI minted by the admin API, gets the key's
// pubkey and signs; a kind outside its allow list, a locked key and an unknown method are refused; a used
// secret and a client that never connected get no answer at all (issue 22, H1); garbage on the relay does
// not take the bunker down; the allow list survives a restart; and a Revoke on the admin page (in Chromium)
// stops the client at once.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nip44 from 'nostr-tools/nip44';
import { type BunkerPointer, BunkerSigner, parseBunkerInput } from 'nostr-tools/nip46';
import { SimplePool } from 'nostr-tools/pool';
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callBunker, type RunningBunker, runBunkerCli, startBunker } from '../support/bunker-process.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { type RunningRelay, startRelay } from '../support/relay-process.js';

// Timeouts (docs/testing.md): NIP-46 round trips with Chromium: 13 s among parallel files
vi.setConfig({ testTimeout: 60_000 });

let relay: RunningRelay;
let bunker: RunningBunker;
let dataDir: string;
let passphrase: string;
let pointer: BunkerPointer;
const pool = new SimplePool();
const signers: BunkerSigner[] = [];
const now = () => Math.floor(Date.now() / 1000);

/** `BunkerSigner` waits for ever for an answer that never comes: fail after 10 s instead. */
function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A `BunkerSigner` with a fresh client key for `bp`. */
function newClient(bp: BunkerPointer): { signer: BunkerSigner; secret: Uint8Array; pubkey: string } {
  const secret = generateSecretKey();
  const signer = BunkerSigner.fromBunker(secret, bp, { pool });
  signers.push(signer);
  return { signer, secret, pubkey: getPublicKey(secret) };
}

const fileTemplate = (content: string) => ({
  kind: 1063,
  created_at: now(),
  tags: [['x', 'ab'.repeat(32)]],
  content,
});

/** Whether `promise` gets no answer within `ms`: what a stranger gets from the bunker. */
async function unanswered(promise: Promise<unknown>, what: string, ms = 4000): Promise<boolean> {
  try {
    await within(promise, what, ms);
    return false;
  } catch (error) {
    return String(error).includes(`no answer to ${what}`);
  }
}

/** A rejection's text: `BunkerSigner` rejects with the bunker's error string itself. */
async function refusal(promise: Promise<unknown>, what: string): Promise<string> {
  try {
    await within(promise, what);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error(`${what} was not refused`);
}

async function startWithRelay(): Promise<RunningBunker> {
  return startBunker({ dataDir, env: { BUNKER_PASSPHRASE: passphrase }, args: ['--relay', relay.url] });
}

/** A new connection URI from the admin API. */
async function mintUri(body: Record<string, unknown> = { key: 'default' }): Promise<string> {
  const made = await callBunker(bunker.url, 'POST', '/api/nip46/uri', { token: bunker.adminToken, body });
  expect(made.status).toBe(201);
  return ((await made.json()) as { uri: string }).uri;
}

/** The NIP-46 worker's counters. */
async function stats(): Promise<{
  dropped: Record<'stranger' | 'overBudget' | 'undecryptable' | 'duplicate' | 'stale', number>;
  decryptions: { strangers: number };
}> {
  const res = await callBunker(bunker.url, 'GET', '/api/nip46/stats', { token: bunker.adminToken });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    dropped: Record<'stranger' | 'overBudget' | 'undecryptable' | 'duplicate' | 'stale', number>;
    decryptions: { strangers: number };
  };
}

beforeAll(async () => {
  relay = await startRelay();
  dataDir = await mkdtemp(join(tmpdir(), 'siegel-nip46-'));
  passphrase = 'nip46 test passphrase';
  // The key exists before the start, so that the bunker unlocks it with BUNKER_PASSPHRASE.
  const added = await runBunkerCli(['keys', 'add', 'default', '--generate', '--data-dir', dataDir], {
    BUNKER_PASSPHRASE: passphrase,
  });
  expect(added.code, added.stderr).toBe(0);
  bunker = await startWithRelay();
  const parsed = await parseBunkerInput(await mintUri());
  if (!parsed) throw new Error('nostr-tools cannot parse the minted URI');
  pointer = parsed;
});

afterAll(async () => {
  for (const signer of signers) await signer.close();
  pool.destroy();
  await bunker?.stop();
  await relay?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('siegel-bunker as a NIP-46 remote signer, with nostr-tools BunkerSigner', () => {
  let first: ReturnType<typeof newClient>;

  it('mints a bunker:// URI whose remote-signer key is not the signing key, on the given relay; prints none', () => {
    expect(pointer.relays).toEqual([relay.url]);
    expect(pointer.secret).toMatch(/^[0-9a-f]{32}$/);
    expect(pointer.pubkey).toMatch(/^[0-9a-f]{64}$/);
    expect(pointer.pubkey).not.toBe(bunker.pubkey);
    expect(bunker.output()).not.toContain('bunker://');
  });

  it('connects with a minted URI, gets the key pubkey, signs an allowed kind into the audit log', async () => {
    first = newClient(pointer);
    await within(first.signer.connect(), 'connect');
    expect(await within(first.signer.getPublicKey(), 'get_public_key')).toBe(bunker.pubkey);
    await within(first.signer.ping(), 'ping');

    const event = await within(first.signer.signEvent(fileTemplate('over NIP-46')), 'sign_event');
    expect(verifyEvent(event)).toBe(true);
    expect(event.pubkey).toBe(bunker.pubkey);
    expect(event.content).toBe('over NIP-46');

    const audit = (await readFile(join(dataDir, 'audit.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit).toContainEqual(
      expect.objectContaining({ key: 'default', id: event.id, kind: 1063, client: first.pubkey }),
    );

    const listed = (await (
      await callBunker(bunker.url, 'GET', '/api/nip46/connections', { token: bunker.adminToken })
    ).json()) as { connections: { pubkey: string; key: string; kinds: number[]; nip44: boolean }[] };
    expect(listed.connections).toEqual([
      expect.objectContaining({
        pubkey: first.pubkey,
        key: 'default',
        kinds: [1063, 15128, 35128],
        nip44: false,
      }),
    ]);
    const asApi = await callBunker(bunker.url, 'GET', '/api/nip46/connections', { token: bunker.apiToken });
    expect(asApi.status).toBe(403);
  });

  it('refuses a kind outside the allow list, the encryption methods it was not given, an unknown method', async () => {
    const kind1 = await refusal(
      first.signer.signEvent({ kind: 1, created_at: now(), tags: [], content: 'a note' }),
      'sign_event kind 1',
    );
    expect(kind1).toContain('Kind `1` is not allowed for this client (allowed: 1063, 15128, 35128)');
    const encrypt = await refusal(first.signer.nip44Encrypt(bunker.pubkey, 'hi'), 'nip44_encrypt');
    expect(encrypt).toContain('`nip44_encrypt` is not allowed');
    const unknown = await refusal(first.signer.sendRequest('frobnicate', []), 'frobnicate');
    expect(unknown).toContain('Unknown method `frobnicate`');
  });

  it('does not answer a second client presenting the used secret, nor a client that never connected', async () => {
    const second = newClient(pointer);
    expect(await unanswered(second.signer.connect(), 'second connect')).toBe(true);
    expect(await unanswered(second.signer.signEvent(fileTemplate('no')), 'sign without connect')).toBe(true);
    // The one that did connect is still answered.
    await within(first.signer.ping(), 'ping');
  });

  it('answers a locked key with an error, and signs again once it is unlocked', async () => {
    const admin = { token: bunker.adminToken };
    expect((await callBunker(bunker.url, 'POST', '/api/keys/default/lock', admin)).status).toBe(200);
    const locked = await refusal(first.signer.signEvent(fileTemplate('locked')), 'sign while locked');
    expect(locked).toBe('Key `default` is locked');
    const unlock = { ...admin, body: { passphrase } };
    expect((await callBunker(bunker.url, 'POST', '/api/keys/default/unlock', unlock)).status).toBe(200);
    const event = await within(first.signer.signEvent(fileTemplate('unlocked')), 'sign after unlock');
    expect(verifyEvent(event)).toBe(true);
  });

  it('makes a new URI through the admin API with its own permissions (kind 1, NIP-44)', async () => {
    const made = await callBunker(bunker.url, 'POST', '/api/nip46/uri', {
      token: bunker.adminToken,
      body: { key: 'default', kinds: [1], nip44: true },
    });
    expect(made.status).toBe(201);
    const { uri } = (await made.json()) as { uri: string };
    const bp = await parseBunkerInput(uri);
    if (!bp) throw new Error(`nostr-tools cannot parse ${uri}`);
    // Each URI has its own remote-signer key: nobody without the URI can address a `connect` to it.
    expect(bp.pubkey).not.toBe(pointer.pubkey);
    expect(bp.secret).not.toBe(pointer.secret);

    const third = newClient(bp);
    await within(third.signer.connect({ name: 'third app' }), 'connect');
    const note = await within(
      third.signer.signEvent({ kind: 1, created_at: now(), tags: [], content: 'a note' }),
      'sign kind 1',
    );
    expect(verifyEvent(note)).toBe(true);
    expect(await refusal(third.signer.signEvent(fileTemplate('no')), 'kind 1063')).toContain(
      'Kind `1063` is not allowed',
    );
    // NIP-44 through the bunker's key, checked against nostr-tools on the peer's side.
    const peer = generateSecretKey();
    const sealed = await within(third.signer.nip44Encrypt(getPublicKey(peer), 'secret words'), 'nip44');
    expect(nip44.decrypt(sealed, nip44.getConversationKey(peer, bunker.pubkey))).toBe('secret words');
    const back = nip44.encrypt('reply', nip44.getConversationKey(peer, bunker.pubkey));
    expect(await within(third.signer.nip44Decrypt(getPublicKey(peer), back), 'nip44 decrypt')).toBe('reply');

    const bad = await callBunker(bunker.url, 'POST', '/api/nip46/uri', {
      token: bunker.adminToken,
      body: { key: 'default', kinds: ['x1'] },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('`x1`');
  });

  it('drops garbage and wrongly encrypted 24133 events without falling over', async () => {
    // Sent to an unused URI's key, the only place a stranger's event is read at all.
    const target = await parseBunkerInput(await mintUri());
    if (!target) throw new Error('no URI');
    const before = await stats();
    const stranger = generateSecretKey();
    const wrongKey = nip44.getConversationKey(stranger, getPublicKey(generateSecretKey()));
    const rightKey = nip44.getConversationKey(stranger, target.pubkey);
    const contents = [
      'not encrypted at all',
      nip44.encrypt(JSON.stringify({ id: 'x', method: 'ping', params: [] }), wrongKey),
      nip44.encrypt('{not json', rightKey),
      nip44.encrypt(JSON.stringify({ id: 7, method: ['ping'] }), rightKey),
      'bm90aGluZw==?iv=AAAAAAAAAAAAAAAAAAAAAA==',
      '',
    ];
    // From fresh authors each: one author's budget is 4 events at once.
    const events = contents.map((content) =>
      finalizeEvent(
        { kind: 24133, created_at: now(), tags: [['p', target.pubkey]], content },
        contents.indexOf(content) < 3 ? stranger : generateSecretKey(),
      ),
    );
    const results = await Promise.allSettled(events.flatMap((event) => pool.publish([relay.url], event)));
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);

    await expect
      .poll(async () => (await stats()).dropped.undecryptable - before.dropped.undecryptable, {
        timeout: 10_000,
      })
      .toBe(contents.length);
    // One summary line for them, not a line each.
    await expect.poll(() => bunker.output(), { timeout: 10_000 }).toMatch(/NIP-46: dropped \d+ events?/);
    // Still answering.
    await within(first.signer.ping(), 'ping after garbage');
    expect(bunker.output()).not.toMatch(/unexpected|TypeError|internal error/i);
  });

  it('keeps the allow list across a restart', async () => {
    await bunker.stop();
    bunker = await startWithRelay();
    const state = JSON.parse(await readFile(join(dataDir, 'nip46.json'), 'utf8')) as {
      clients: { pubkey: string }[];
    };
    expect(state.clients.map((c) => c.pubkey)).toContain(first.pubkey);
    // No new connect: the old authorisation holds (the bunker resubscribes once it reaches the relay).
    const event = await within(
      first.signer.signEvent(fileTemplate('after restart')),
      'sign after restart',
      20_000,
    );
    expect(verifyEvent(event)).toBe(true);
  });

  it('refuses to start with a relay that is not wss:// (or ws:// on loopback), quoting it', async () => {
    const env = { BUNKER_API_TOKEN: 'a'.repeat(24), BUNKER_ADMIN_TOKEN: 'b'.repeat(24) };
    for (const bad of ['http://relay.example', 'ws://relay.example']) {
      const result = await runBunkerCli(['start', '--port', '0', '--data-dir', dataDir, '--relay', bad], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`Relay \`${bad}\` (--relay) must be a wss:// URL`);
    }
    const kinds = await runBunkerCli(
      ['start', '--port', '0', '--data-dir', dataDir, '--nip46-kinds', '1,x'],
      {
        ...env,
        BUNKER_RELAYS: relay.url,
      },
    );
    expect(kinds.code).toBe(1);
    expect(kinds.stderr).toContain('`x` (--nip46-kinds) is not an event kind');
  });

  describe('on the admin page', () => {
    let browser: LaunchedChromium;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('lists the connection with its kinds, and Revoke stops the client at once', async () => {
      const page = await browser.context.newPage();
      await page.goto(`${bunker.url}/admin`);
      await page.getByLabel('Admin token').fill(bunker.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const row = page.locator(`tr[data-client="${first.pubkey}"]`);
      await row.waitFor();
      expect(await row.locator('td').nth(1).textContent()).toBe('default');
      expect(await row.locator('td').nth(2).textContent()).toBe('1063, 15128, 35128');
      await expect.poll(() => page.locator('tr[data-client]').count()).toBe(2);

      await row.getByRole('button', { name: 'Revoke' }).click();
      await expect
        .poll(() => page.getByRole('status').textContent())
        .toContain('The NIP-46 connection to key default is revoked.');
      expect(await page.locator(`tr[data-client="${first.pubkey}"]`).count()).toBe(0);
      await page.waitForLoadState('load');

      // Revoked, it is a stranger: no answer at all.
      expect(await unanswered(first.signer.signEvent(fileTemplate('revoked')), 'sign after revoke')).toBe(
        true,
      );
      // Connecting again with its old secret does not bring it back: a stranger now, it gets no answer.
      expect(await unanswered(first.signer.connect(), 'connect after revoke')).toBe(true);

      // A new URI from the page is shown once, and connects a new client.
      await page.getByRole('button', { name: 'New connection URI' }).click();
      const shown = page.locator('[data-bunker-uri="default"]');
      await shown.waitFor();
      const bp = await parseBunkerInput(String(await shown.textContent()));
      if (!bp) throw new Error('the page shows no bunker:// URI');
      const fourth = newClient(bp);
      await within(fourth.signer.connect(), 'connect with the page URI');
      expect(verifyEvent(await within(fourth.signer.signEvent(fileTemplate('4')), 'sign'))).toBe(true);
      await page.close();
    });
  });
});
