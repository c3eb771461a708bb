import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventTemplate } from 'nostr-tools/core';
import { nsecEncode } from 'nostr-tools/nip19';
import { generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSigner,
  HttpBunkerSigner,
  LocalKeySigner,
  loadEnv,
  readSignerConfig,
  SiegelError,
} from '../src/index.js';
import { loadSigningEngine } from '../src/nostr/crypto.js';
import { siegelRejection } from './support/rejection.js';
import { startTinyBunker, type TinyBunker } from './support/tiny-bunker.js';

const templates = (n: number): EventTemplate[] =>
  Array.from({ length: n }, (_, i) => ({
    kind: 1063,
    created_at: 1_700_000_000 + i,
    tags: [['x', String(i)]],
    content: `page ${i}`,
  }));

let bunker: TinyBunker | undefined;
afterEach(async () => {
  await bunker?.close();
  bunker = undefined;
});

describe('configuration', () => {
  it('applies the documented defaults and treats blank values as unset', () => {
    expect(readSignerConfig({})).toEqual({
      url: 'http://localhost:7777',
      urlSource: { kind: 'default' },
      apiToken: undefined,
      keyName: 'default',
    });
    expect(
      readSignerConfig({ BUNKER_API_TOKEN: '  ', BUNKER_URL: 'http://b:1/', BUNKER_KEY_NAME: 'k' }),
    ).toEqual({
      url: 'http://b:1',
      urlSource: { kind: 'environment' },
      apiToken: undefined,
      keyName: 'k',
    });
  });

  it('reads .env without touching process.env; the environment wins', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'siegel-env-'));
    try {
      await writeFile(
        join(dir, '.env'),
        'BUNKER_API_TOKEN=from-file\nSIEGEL_TEST_ONLY_VAR=x\nBUNKER_KEY_NAME=filekey\n',
      );
      const env = loadEnv(dir, { BUNKER_KEY_NAME: 'envkey' });
      expect(env.BUNKER_API_TOKEN).toBe('from-file');
      expect(env.BUNKER_KEY_NAME).toBe('envkey');
      expect(process.env.SIEGEL_TEST_ONLY_VAR).toBeUndefined();
      expect(loadEnv(join(dir, 'missing'), {})).toEqual({});
      // Where BUNKER_URL came from, as the unreachable-bunker message names it.
      const file = join(dir, '.env');
      expect(readSignerConfig(env).urlSource).toEqual({ kind: 'default', envFile: file });
      await writeFile(file, 'BUNKER_URL=http://from-file:1\n');
      expect(readSignerConfig(loadEnv(dir, {})).urlSource).toEqual({ kind: 'env-file', path: file });
      expect(readSignerConfig(loadEnv(dir, { BUNKER_URL: 'http://env:1' })).urlSource).toEqual({
        kind: 'environment',
      });
      // A copy no longer knows what came from `.env`: a value in it is the environment given.
      expect(readSignerConfig({ ...loadEnv(dir, {}) }).urlSource).toEqual({ kind: 'environment' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('without a token: exactly `BUNKER_API_TOKEN nicht gesetzt`', () => {
    for (const make of [() => createSigner({ env: {} }), () => new HttpBunkerSigner({ apiToken: ' ' })]) {
      let error: unknown;
      try {
        make();
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(SiegelError);
      expect((error as SiegelError).code).toBe('token_missing');
      expect((error as SiegelError).message.split('\n')[0]).toBe('BUNKER_API_TOKEN nicht gesetzt');
    }
  });
});

describe('LocalKeySigner', () => {
  it('accepts hex and nsec, signs valid events, never echoes a bad key', async () => {
    const secret = generateSecretKey();
    const hex = Buffer.from(secret).toString('hex');
    const fromHex = new LocalKeySigner(hex);
    const fromNsec = new LocalKeySigner(nsecEncode(secret));
    expect(await fromHex.getPublicKey()).toBe(getPublicKey(secret));
    expect(await fromNsec.getPublicKey()).toBe(getPublicKey(secret));
    const input = templates(3);
    const events = await fromNsec.signEvents(input);
    expect(events.map((e) => e.content)).toEqual(['page 0', 'page 1', 'page 2']);
    for (const event of events) expect(verifyEvent({ ...event })).toBe(true);
    expect(input[0]).not.toHaveProperty('sig');
    expect(() => new LocalKeySigner('secretsecret')).toThrow(/64 hex characters/);
    expect(() => new LocalKeySigner('secretsecret')).not.toThrow(/secretsecret/);
  });
});

describe('HttpBunkerSigner', () => {
  it('signs in chunked batches, in order, and checks every event', async () => {
    bunker = await startTinyBunker();
    const signer = new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token, batchSize: 3 });
    await signer.check();
    expect(await signer.getPublicKey()).toBe(bunker.pubkey);
    const events = await signer.signEvents(templates(7));
    expect(events.map((e) => e.content)).toEqual(templates(7).map((t) => t.content));
    for (const event of events) expect(verifyEvent({ ...event })).toBe(true);
    expect(bunker.requests.filter((r) => r === 'POST /api/keys/default/sign')).toHaveLength(3);
  });

  it('maps 404 / 423 / 401 to the German errors (401: token set but rejected)', async () => {
    bunker = await startTinyBunker();
    const unknown = new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token, keyName: 'nope' });
    for (const error of [
      await siegelRejection(unknown.check()),
      await siegelRejection(unknown.signEvents(templates(1))),
    ]) {
      expect(error.code).toBe('key_not_found');
      expect(error.message.split('\n')[0]).toBe('Key nicht gefunden');
      expect(error.message).toContain('`nope`');
    }
    bunker.state.locked = true;
    const locked = new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token });
    for (const error of [
      await siegelRejection(locked.check()),
      await siegelRejection(locked.signEvents(templates(1))),
    ]) {
      expect(error.code).toBe('key_locked');
      expect(error.message.split('\n')[0]).toBe('Key ist gesperrt');
    }
    // Regression: a token that is set but rejected (401) was reported as `BUNKER_API_TOKEN nicht gesetzt`,
    // which docs/errors.md reserves for a missing token.
    const wrongToken = new HttpBunkerSigner({ url: bunker.url, apiToken: 'tok-3f9a' });
    for (const error of [
      await siegelRejection(wrongToken.check()),
      await siegelRejection(wrongToken.signEvents(templates(1))),
    ]) {
      expect(error.code).toBe('token_rejected');
      expect(error.message.split('\n')[0]).toBe('BUNKER_API_TOKEN ungültig');
      expect(error.message).toContain(`BUNKER_URL \`${bunker.url}\``);
      expect(error.message).not.toContain('nicht gesetzt');
      expect(error.message).not.toContain('tok-3f9a'); // the token is never echoed
    }
  });

  it('falls back to POST /api/sign on a bunker with only the compat routes', async () => {
    bunker = await startTinyBunker({ compatOnly: true });
    const signer = new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token });
    expect(await signer.getPublicKey()).toBe(bunker.pubkey);
    const events = await signer.signEvents(templates(5));
    expect(events.map((e) => e.content)).toEqual(templates(5).map((t) => t.content));
    for (const event of events) expect(verifyEvent({ ...event })).toBe(true);
    // tried once, then remembered
    expect(bunker.requests.filter((r) => r === 'POST /api/keys/default/sign')).toHaveLength(1);
    expect(bunker.requests.filter((r) => r === 'POST /api/sign').length).toBeGreaterThanOrEqual(5);
    bunker.state.locked = true;
    expect((await siegelRejection(signer.signEvents(templates(1)))).message.split('\n')[0]).toBe(
      'Key ist gesperrt',
    );
    const other = new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token, keyName: 'other' });
    expect((await siegelRejection(other.signEvents(templates(1)))).message.split('\n')[0]).toBe(
      'Key nicht gefunden',
    );
  });

  it('retries transient 5xx, then gives up with a message naming BUNKER_URL', async () => {
    bunker = await startTinyBunker();
    const signer = new HttpBunkerSigner({
      url: bunker.url,
      apiToken: bunker.token,
      retries: 2,
      retryDelayMs: 5,
    });
    bunker.state.failNext = 2;
    expect(await signer.signEvents(templates(2))).toHaveLength(2);
    // A bunker that fails everything: the request (3 attempts), then the probe that asks whether it signs
    // anything at all (3 attempts) — a failure of the run, not of the page.
    bunker.state.failNext = 100;
    bunker.requests.length = 0;
    const error = await siegelRejection(signer.signEvents(templates(1)));
    expect(error.code).toBe('bunker_error');
    expect(error.message).toContain(`BUNKER_URL \`${bunker.url}\``);
    expect(error.message).toContain('503');
    expect(bunker.requests).toHaveLength(6);
  });

  const large = (size: number): EventTemplate => ({
    kind: 1063,
    created_at: 1_700_000_000,
    tags: [['alt', 'x'.repeat(size)]],
    content: 'x'.repeat(size),
  });

  it('a refused event is `event_refused` (per event), once the bunker shows it signs others: 413 at once, a 5xx after its retries', async () => {
    bunker = await startTinyBunker();
    const signer = new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token, retryDelayMs: 5 });
    bunker.state.refuseLarge = { bytes: 10_000, status: 413 };
    // Nothing signed yet: one tiny probe event shows that the bunker signs, so the refusal is the event's.
    const first = await siegelRejection(signer.signEvents([large(20_000)]));
    expect(first.code).toBe('event_refused');
    expect(first.message).toBe(
      `the bunker at \`${bunker.url}\` refused to sign it: HTTP 413 \`event_too_large\` The event is too large`,
    );
    expect(bunker.requests).toEqual(['POST /api/keys/default/sign', 'POST /api/keys/default/sign']);
    // A batch holding it: refused as a batch (signSite then halves it); no probe once the bunker has signed.
    bunker.requests.length = 0;
    const batch = await siegelRejection(signer.signEvents([...templates(2), large(20_000)]));
    expect(batch.code).toBe('event_refused');
    expect(batch.message).toContain('refused to sign a batch of 3 events: HTTP 413');
    expect(bunker.requests).toHaveLength(1);
    expect(await signer.signEvents(templates(3))).toHaveLength(3);
    // The bunker of issue 10 answered 500 for such an event: retried, then a fresh probe decides.
    bunker.state.refuseLarge = { bytes: 10_000, status: 500 };
    bunker.requests.length = 0;
    const server = await siegelRejection(signer.signEvents([large(20_000)]));
    expect(server.code).toBe('event_refused');
    expect(server.message).toContain(
      'HTTP 500 `internal_error` Internal error (it signs other events: this one alone fails)',
    );
    expect(bunker.requests).toHaveLength(4); // 3 attempts and the probe
  });

  it('a bunker that refuses even the probe fails the run, not a page (413 and 500 alike); token and lock errors stay global', async () => {
    bunker = await startTinyBunker();
    const signer = new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token, retryDelayMs: 5 });
    for (const status of [413, 500]) {
      bunker.state.refuseLarge = { bytes: 0, status };
      const error = await siegelRejection(signer.signEvents([large(10)]));
      expect(error.code).toBe('bunker_error');
      expect(error.message).toContain(`HTTP ${status}`);
    }
    bunker.state.refuseLarge = undefined;
    expect(await signer.signEvents(templates(1))).toHaveLength(1);
    bunker.state.locked = true;
    const locked = await siegelRejection(signer.signEvents(templates(1)));
    expect(locked.code).toBe('key_locked');
    expect(locked.message.split('\n')[0]).toBe('Key ist gesperrt');
  });

  it('a local key refuses an event its engine cannot sign as `event_refused` (the WebAssembly heap ends near 1 MB)', async () => {
    expect((await loadSigningEngine()).name).toBe('wasm');
    const signer = new LocalKeySigner(generateSecretKey());
    const error = await siegelRejection(signer.signEvents([large(600_000)]));
    expect(error.code).toBe('event_refused');
    expect(error.message).toMatch(/^the local key could not sign it: /);
    expect(await signer.signEvents([large(1_000)])).toHaveLength(1);
  });

  it('halves the batch on 413', async () => {
    bunker = await startTinyBunker();
    bunker.state.maxBatch = 2;
    const signer = new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token, batchSize: 8 });
    expect((await signer.signEvents(templates(8))).map((e) => e.content)).toEqual(
      templates(8).map((t) => t.content),
    );
  });

  it('reports an unreachable bunker and a timeout clearly', async () => {
    bunker = await startTinyBunker();
    const url = bunker.url;
    bunker.state.hang = true;
    const slow = new HttpBunkerSigner({ url, apiToken: bunker.token, timeoutMs: 150, retries: 0 });
    const timeout = await siegelRejection(slow.check());
    expect(timeout.code).toBe('bunker_unreachable');
    expect(timeout.message).toBe(
      `Bunker at BUNKER_URL \`${url}\` did not answer within 150 ms.\nThe address is the \`url\` option (BUNKER_URL is not used).`,
    );
    await bunker.close();
    bunker = undefined;
    const down = new HttpBunkerSigner({ url, apiToken: 'x', retries: 1, retryDelayMs: 5 });
    const error = await siegelRejection(down.signEvents(templates(1)));
    expect(error.code).toBe('bunker_unreachable');
    expect(error.message).toContain(`Bunker not reachable at BUNKER_URL \`${url}\``);
  });
});
