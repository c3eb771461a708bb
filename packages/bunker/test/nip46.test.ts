import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NSITE_NAMED_KIND, NSITE_ROOT_KIND, PAGE_EVENT_KIND } from '@siegel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BunkerError, jsEngine } from '../src/index.js';
import { ConnectionStore, NIP46_STATE_FILE } from '../src/nip46/connection-store.js';
import { DEFAULT_NIP46_KINDS, grantPermissions, parseKinds } from '../src/nip46/permissions.js';

const offer = { kinds: [1, 1063], nip44: true, nip04: false };
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('DEFAULT_NIP46_KINDS', () => {
  it('are the kinds a signing run signs: page and file events and both site-manifest kinds', () => {
    expect(DEFAULT_NIP46_KINDS).toEqual([PAGE_EVENT_KIND, NSITE_ROOT_KIND, NSITE_NAMED_KIND]);
  });
});

describe('parseKinds', () => {
  it('reads a comma list, sorted and without duplicates', () => {
    expect(parseKinds(' 1063, 1,1063 ')).toEqual([1, 1063]);
  });

  it('refuses what is no kind, quoting it, and an empty list', () => {
    for (const bad of ['1063,x', '-1', '65536', '1.5', '0x10']) {
      expect(() => parseKinds(bad, '--nip46-kinds')).toThrow(/`.+` \(--nip46-kinds\) is not an event kind/);
    }
    expect(() => parseKinds(' , ')).toThrow(BunkerError);
  });
});

describe('grantPermissions', () => {
  it('gives the whole offer when the client asks for nothing (BunkerSigner sends "")', () => {
    expect(grantPermissions('', offer)).toEqual(offer);
    expect(grantPermissions(undefined, offer)).toEqual(offer);
  });

  it('gives what was asked within the offer, never more', () => {
    expect(grantPermissions('sign_event:1063,sign_event:7,nip04_encrypt', offer)).toEqual({
      kinds: [1063],
      nip44: false,
      nip04: false,
    });
    expect(grantPermissions('sign_event,nip44_encrypt,get_public_key', offer)).toEqual(offer);
  });
});

describe('ConnectionStore', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'siegel-nip46-unit-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('redeems a URI once, with its own remote-signer key; not with a wrong secret, not after expiry', async () => {
    let clock = 1_000_000_000;
    const store = await ConnectionStore.open({
      dataDir,
      engine: jsEngine,
      now: () => clock,
      uriTtlMs: 60_000,
    });
    const made = store.offer('default', offer);
    const other = store.offer('default', offer);
    expect(made.signer).not.toBe(other.signer);
    expect(store.transport(made.signer)).toMatchObject({ key: 'default', pending: true });
    expect(store.pending().map((p) => p.signer)).toEqual([made.signer, other.signer]);
    expect(JSON.stringify(store.pending())).not.toContain(made.secret);
    expect(() => store.redeem(made.signer, other.secret)).toThrow(/Unknown or expired/);
    expect(store.redeem(made.signer, made.secret)).toEqual({ key: 'default', permissions: offer });
    expect(store.transport(made.signer)).toMatchObject({ key: 'default', pending: false });
    expect(() => store.redeem(made.signer, made.secret)).toThrow(/Unknown or expired/);
    // The other one expires unused: refused, and no longer listened to.
    clock += 60_000;
    expect(() => store.redeem(other.signer, other.secret)).toThrow(/Unknown or expired/);
    expect(store.transport(other.signer)).toBeUndefined();
    expect(store.signerPubkeys()).toEqual([made.signer]);
    expect(store.pending()).toEqual([]);
    await store.close();
  });

  it('keeps remote-signer keys and clients in nip46.json (0600) across a reopen; revoke removes at once', async () => {
    const store = await ConnectionStore.open({ dataDir, engine: jsEngine });
    const { signer, secret } = store.offer('default', offer);
    store.redeem(signer, secret);
    await store.authorise('default', A, offer, 'an app', signer);
    const path = join(dataDir, NIP46_STATE_FILE);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await store.close();

    const again = await ConnectionStore.open({ dataDir, engine: jsEngine });
    expect(again.signerPubkeys()).toEqual([signer]);
    expect(again.transport(signer)?.key).toBe('default');
    expect(again.client('default', A)).toMatchObject({
      pubkey: A,
      key: 'default',
      name: 'an app',
      kinds: [1, 1063],
      signer,
    });
    await again.revoke('default', A);
    expect(again.client('default', A)).toBeUndefined();
    expect(again.signerPubkeys()).toEqual([]);
    await expect(again.revoke('default', A)).rejects.toThrow(/No NIP-46 connection/);
    await again.close();
    const state = JSON.parse(await readFile(path, 'utf8')) as { clients: unknown[] };
    expect(state.clients).toEqual([]);
  });

  it('reads the shared remote-signer key of each key that older state files hold', async () => {
    const hex = '1'.repeat(64);
    await writeFile(
      join(dataDir, NIP46_STATE_FILE),
      JSON.stringify({ version: 1, signers: { default: hex }, clients: [] }),
    );
    const store = await ConnectionStore.open({ dataDir, engine: jsEngine });
    const [pubkey] = store.signerPubkeys();
    expect(pubkey).toBe(jsEngine.getPublicKey(Buffer.from(hex, 'hex')));
    expect(store.transport(pubkey as string)).toMatchObject({ key: 'default', pending: false });
    await store.close();
  });

  it('skips entries that do not check out, and refuses a state file that is no JSON', async () => {
    const path = join(dataDir, NIP46_STATE_FILE);
    await writeFile(
      path,
      JSON.stringify({
        version: 1,
        signers: { default: 'zz', '../evil': 'a'.repeat(64) },
        clients: [
          { pubkey: 'nope', key: 'default' },
          {
            pubkey: B,
            key: 'default',
            kinds: [1],
            nip44: false,
            nip04: false,
            connected_at: 1,
            last_used: 0,
          },
        ],
      }),
    );
    const warnings: string[] = [];
    const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
    const store = await ConnectionStore.open({ dataDir, engine: jsEngine, logger });
    expect(store.signerPubkeys()).toEqual([]);
    expect(store.list().map((c) => c.pubkey)).toEqual([B]);
    expect(warnings).toHaveLength(3);
    await store.close();

    await writeFile(path, '{broken');
    await expect(ConnectionStore.open({ dataDir, engine: jsEngine })).rejects.toThrow(/is not JSON/);
  });
});
