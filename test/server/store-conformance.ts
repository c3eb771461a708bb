// One conformance suite for every store pair (record store + file storage), the way unstorage tests all its
// drivers: the same tests run against SQLite + filesystem and PostgreSQL + S3 (store-conformance.test.ts).
// Every pair opens several store instances on one backend, as several server instances would.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { LocalKeySigner } from '@siegel/core';
import { generateSecretKey } from 'nostr-tools/pure';
import { bytesToHex } from 'nostr-tools/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../server/src/http/api-error.js';
import { answerFor } from '../../server/src/http/error-answers.js';
import { FileSigner } from '../../server/src/signing/file-signer.js';
import type { FileStorage } from '../../server/src/storage/file-storage.js';
import {
  DuplicateRecordError,
  type RecordDatabase,
  type SignedFileRecord,
} from '../../server/src/storage/record-store.js';
import { ClaimLostError } from '../../server/src/storage/store-errors.js';
import { eventually } from '../support/eventually.js';

/** A backend the suite runs on: every `open()` is one more store instance on the same data. */
export interface StorePair {
  /** Opens a record store and a file storage on the shared backend (a new connection or handle each time). */
  open(): Promise<{ records: RecordDatabase; storage: FileStorage }>;
  /** The server settings (environment) that open the same stores, for a child process. */
  env(): Record<string, string>;
  /** Empties the backend between tests (records, claims, outbox, tokens, files). */
  reset(): Promise<void>;
}

const KILLED_WRITE = fileURLToPath(new URL('./killed-write.mjs', import.meta.url));
const signer = new LocalKeySigner(bytesToHex(generateSecretKey()));
const encoder = new TextEncoder();

/** A Markdown file unique to `label`, with an author. */
function markdown(label: string): Uint8Array {
  return encoder.encode(`---\nauthor: Ann Lee\ntitle: ${label}\n---\n# ${label}\n`);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function keysOf(storage: FileStorage, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of storage.list(prefix)) keys.push(key);
  return keys.sort();
}

/**
 * The suite. `pair` is created in `beforeAll` (starting servers where it needs them) and its instances are
 * closed after each group.
 */
export function describeStorePair(name: string, createPair: () => Promise<StorePair>): void {
  describe(`store conformance: ${name}`, () => {
    let pair: StorePair;
    const opened: RecordDatabase[] = [];
    const open = async () => {
      const stores = await pair.open();
      opened.push(stores.records);
      return stores;
    };
    const signerFor = (stores: { records: RecordDatabase; storage: FileStorage }, deliverTo: string[] = []) =>
      new FileSigner({
        signer,
        ...stores,
        claims: stores.records,
        baseUrl: 'http://siegel.test',
        cdnUrl: 'http://siegel.test',
        deliverTo,
        claimLeaseMs: 2000,
      });

    beforeAll(async () => {
      pair = await createPair();
    }, 120_000);
    afterAll(async () => {
      await Promise.all(opened.splice(0).map((records) => records.close()));
    });

    it('keeps a record exactly, finds it by hash and event id, pages through all in hash order', async () => {
      await pair.reset();
      const stores = await open();
      const files = signerFor(stores);
      const signed: SignedFileRecord[] = [];
      for (const label of ['a', 'b', 'c', 'd', 'e'])
        signed.push(await files.sign(markdown(label), `${label}.md`));
      for (const record of signed) {
        expect(await stores.records.findByHash(record.hash)).toEqual(record);
        expect(await stores.records.findByEventId(record.eventId)).toEqual(record);
        const stored = await stores.storage.get(record.fileKey);
        expect(stored && sha256(stored)).toBe(record.hash);
      }
      expect(await stores.records.findByHash('0'.repeat(64))).toBeUndefined();
      const some = [signed[1]?.hash, '0'.repeat(64), signed[3]?.hash] as string[];
      expect(await stores.records.findHashes(some)).toEqual(new Set([signed[1]?.hash, signed[3]?.hash]));
      expect(await stores.records.findHashes([])).toEqual(new Set());
      const byHash = signed.map((record) => record.hash).sort();
      const first = await stores.records.listRecords(undefined, 3);
      const rest = await stores.records.listRecords(first.at(-1)?.hash, 3);
      expect([...first, ...rest].map((record) => record.hash)).toEqual(byHash);
      expect(await stores.records.listRecords(byHash.at(-1), 3)).toEqual([]);
      // A second instance on the same backend reads the same.
      const other = await open();
      expect(await other.records.findByHash(signed[0]?.hash ?? '')).toEqual(signed[0]);
    });

    it('refuses a second record of a hash or an event id, writing nothing (no outbox rows either)', async () => {
      await pair.reset();
      const stores = await open();
      const record = await signerFor(stores, ['wss://a.example']).sign(markdown('dup'), 'dup.md');
      const sameHash = { ...record, eventId: 'd'.repeat(64), event: { ...record.event, id: 'd'.repeat(64) } };
      await expect(
        stores.records.insert(sameHash, { deliverTo: ['wss://b.example'] }),
      ).rejects.toBeInstanceOf(DuplicateRecordError);
      const sameEvent = { ...record, hash: 'e'.repeat(64) };
      await expect(
        stores.records.insert(sameEvent, { deliverTo: ['wss://b.example'] }),
      ).rejects.toBeInstanceOf(DuplicateRecordError);
      expect(await stores.records.deliveries.count()).toEqual({ pending: 1, delivered: 0 });
      expect(await stores.records.findByEventId('d'.repeat(64))).toBeUndefined();
    });

    it('claims: one holder at a time, renewed, released, taken over once expired; a lost claim writes nothing', async () => {
      await pair.reset();
      const a = await open();
      const b = await open();
      const hash = 'c'.repeat(64);
      const claim = await a.records.claimHash(hash, 60_000);
      expect(claim).toMatch(/^[0-9a-f]{32}$/);
      expect(await b.records.claimHash(hash, 60_000)).toBeUndefined();
      // How long it lasts, as any instance sees it.
      expect(await b.records.claimEndsIn(hash)).toBeGreaterThan(50_000);
      expect(await b.records.claimEndsIn(hash)).toBeLessThanOrEqual(60_000);
      expect(await b.records.claimEndsIn('d'.repeat(64))).toBeUndefined();
      expect(await a.records.renewClaim(hash, claim as string, 60_000)).toBe(true);
      await a.records.releaseClaim(hash, claim as string);
      expect(await b.records.claimEndsIn(hash)).toBeUndefined();
      const second = await b.records.claimHash(hash, 1);
      expect(second).toBeDefined();
      // Expired (1 ms): taken over by another; the old holder can neither renew nor write under it.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await a.records.claimEndsIn(hash)).toBeUndefined();
      const third = await a.records.claimHash(hash, 60_000);
      expect(third).toBeDefined();
      expect(await b.records.renewClaim(hash, second as string, 60_000)).toBe(false);
      const record = await signerFor(a).sign(markdown('claimed'), 'claimed.md');
      const moved = {
        ...record,
        hash,
        eventId: 'f'.repeat(64),
        event: { ...record.event, id: 'f'.repeat(64) },
      };
      await expect(b.records.insert(moved, { claim: second as string })).rejects.toBeInstanceOf(
        ClaimLostError,
      );
      expect(await a.records.findByHash(hash)).toBeUndefined();
      // The holder's write releases the claim in the same transaction.
      await a.records.insert(moved, { claim: third as string });
      expect(await b.records.findByHash(hash)).toEqual(moved);
      const next = await b.records.claimHash(hash, 60_000);
      expect(next).toBeDefined();
    });

    it('two instances racing the same hash: 20 claims give one holder; 20 signs give one record', async () => {
      await pair.reset();
      const a = await open();
      const b = await open();
      const hash = 'a'.repeat(64);
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).records.claimHash(hash, 60_000)),
      );
      expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
      const bytes = markdown('raced');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => signerFor(i % 2 === 0 ? a : b).sign(bytes, `raced-${i}.md`)),
      );
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const refused = outcomes.flatMap((outcome) =>
        outcome.status === 'rejected' && answerFor(outcome.reason) !== undefined
          ? [(answerFor(outcome.reason) as ApiError).code]
          : [],
      );
      expect(won).toHaveLength(1);
      expect(refused).toEqual(Array(19).fill('ALREADY_SIGNED'));
      const record = (won[0] as PromiseFulfilledResult<SignedFileRecord>).value;
      // The winner's files are whole, and the losers deleted none of them.
      const stored = await b.storage.get(record.fileKey);
      expect(stored && sha256(stored)).toBe(record.hash);
      expect(await keysOf(b.storage, `events/${record.hash}/`)).toEqual([
        `events/${record.hash}/index.html`,
        `events/${record.hash}/index.json`,
      ]);
      expect(
        JSON.parse(new TextDecoder().decode(await b.storage.get(`events/${record.hash}/index.json`))),
      ).toMatchObject({
        event: { id: record.eventId },
      });
    });

    it('the outbox: claims lease what is due; two instances never claim the same row; retries wait', async () => {
      await pair.reset();
      const a = await open();
      const b = await open();
      const relays = ['wss://a.example', 'wss://b.example'];
      const records: SignedFileRecord[] = [];
      for (let i = 0; i < 25; i++) {
        records.push(await signerFor(a, relays).sign(markdown(`outbox ${i}`), `o${i}.md`));
      }
      expect(await b.records.deliveries.count()).toEqual({ pending: 50, delivered: 0 });
      const now = Date.now() + 1000;
      const batches = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).records.deliveries.claimDue(now, 60_000, 7),
        ),
      );
      const claimed = batches.flat().map((delivery) => `${delivery.eventId}/${delivery.relay}`);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.length).toBe(50);
      const first = batches.flat()[0];
      if (first === undefined) throw new Error('nothing claimed');
      expect(first.event.id).toBe(first.eventId);
      expect(await a.records.deliveries.claimDue(now + 30_000, 60_000)).toEqual([]);
      // The claimer died: due again for anyone when the lease ends, attempts unchanged.
      const again = await b.records.deliveries.claimDue(now + 61_000, 1000, 500);
      expect(again).toHaveLength(50);
      expect(new Set(again.map((delivery) => delivery.attempts))).toEqual(new Set([0]));
      const event = records[0]?.eventId as string;
      await a.records.deliveries.markDelivered(event, 'wss://a.example', now);
      await a.records.deliveries.markFailed(event, 'wss://b.example', 'blocked: no', now + 200_000);
      expect(await b.records.deliveries.deliveredTo(event)).toEqual(['wss://a.example']);
      expect(await b.records.deliveries.count()).toEqual({ pending: 49, delivered: 1 });
      const later = await b.records.deliveries.claimDue(now + 190_000, 1000, 500);
      expect(later.some((delivery) => delivery.eventId === event)).toBe(false);
      const retried = await b.records.deliveries.claimDue(now + 200_000, 1000, 500);
      expect(retried.filter((delivery) => delivery.eventId === event)).toEqual([
        expect.objectContaining({ relay: 'wss://b.example', attempts: 1 }),
      ]);
    });

    it('upload tokens: 20 parallel uses of a 5-use token over two instances take exactly 5', async () => {
      await pair.reset();
      const a = await open();
      const b = await open();
      const now = Date.now();
      const token = {
        hash: '1'.repeat(64),
        origin: 'https://app.example',
        uses: 5,
        expiresAt: now + 60_000,
        createdAt: now,
      };
      await a.records.insertUploadToken(token);
      expect(await b.records.findUploadToken(token.hash)).toEqual({ ...token, used: 0 });
      const uses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).records.useUploadToken(token.hash, now)),
      );
      expect(
        uses
          .filter((use) => use !== undefined)
          .map((use) => use?.used)
          .sort(),
      ).toEqual([1, 2, 3, 4, 5]);
      expect(await a.records.useUploadToken(token.hash, now + 60_000)).toBeUndefined();
      await b.records.insertUploadToken({ ...token, hash: '2'.repeat(64), expiresAt: now - 1 });
      expect(await a.records.removeExpiredUploadTokens(now)).toBe(1);
      expect(await b.records.findUploadToken('2'.repeat(64))).toBeUndefined();
    });

    it('the change stamp moves after a write through this or another instance', async () => {
      await pair.reset();
      const a = await open();
      const b = await open();
      // A store that cannot tell (no method, or undefined now) is allowed: verify then reads every time.
      const stampOf = a.records.readChangeStamp?.bind(a.records);
      if (stampOf === undefined) return;
      /** Waits for a defined stamp other than `previous`, and returns it. */
      const movedFrom = async (previous: string | undefined) => {
        let now: string | undefined;
        await eventually(
          () => {
            now = stampOf();
            return now !== undefined && now !== previous;
          },
          10_000,
          20,
        );
        return now;
      };
      // Nothing was written yet: the stamp stands still until another instance writes.
      const before = await movedFrom(undefined);
      const record = await signerFor(b, ['wss://a.example']).sign(markdown('other'), 'other.md');
      const afterRecord = await movedFrom(before);
      // And when the outbox changes (`published_to` is part of a verify answer).
      await b.records.deliveries.markDelivered(record.eventId, 'wss://a.example', Date.now());
      const afterOutbox = await movedFrom(afterRecord);
      // Its own writes move it at once.
      await signerFor(a).sign(markdown('own'), 'own.md');
      expect(stampOf()).not.toBe(afterOutbox);
    });

    it('files: put, get, stream, list, delete, and a stamp that changes with the bytes', async () => {
      await pair.reset();
      const { storage } = await open();
      const big = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 31) % 251);
      await storage.put('documents/big.bin', big);
      await storage.put('events/x/index.json', encoder.encode('{}'));
      expect(sha256((await storage.get('documents/big.bin')) as Uint8Array)).toBe(sha256(big));
      const stream = await storage.stream?.('documents/big.bin');
      if (stream !== undefined) expect(sha256(await readAll(stream))).toBe(sha256(big));
      expect(await storage.stream?.('documents/none.bin')).toBeUndefined();
      expect(await storage.get('documents/none.bin')).toBeUndefined();
      expect(await keysOf(storage, 'documents/')).toEqual(['documents/big.bin']);
      expect(await keysOf(storage, '')).toEqual(['documents/big.bin', 'events/x/index.json']);
      const stamp = async (key: string) => (await storage.statVersion?.(key)) ?? storage.readVersion?.(key);
      const before = await stamp('documents/big.bin');
      await storage.put('documents/big.bin', big.subarray(1));
      expect(await stamp('documents/big.bin')).not.toBe(before);
      await storage.delete('documents/big.bin');
      await storage.delete('documents/big.bin'); // a missing key is no error
      expect(await storage.get('documents/big.bin')).toBeUndefined();
      expect(await keysOf(storage, 'documents/')).toEqual([]);
      await expect(storage.put('../escape', big)).rejects.toThrow(/Invalid storage key/);
    });

    it('a write killed between file and record: no record, and the next sweep removes the files once the claim ends', async () => {
      await pair.reset();
      const bytes = markdown('killed');
      const hash = sha256(bytes);
      const child = spawn(process.execPath, [KILLED_WRITE], {
        env: {
          ...pair.env(),
          PATH: process.env.PATH,
          CLAIM_LEASE_MS: '1500',
          KILLED_WRITE_TEXT: new TextDecoder().decode(bytes),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk));
      const signal = await new Promise((resolve) =>
        child.once('exit', (_code, killedBy) => resolve(killedBy)),
      );
      expect(signal, output).toBe('SIGKILL');
      const stores = await open();
      const files = signerFor(stores);
      expect(await stores.records.findByHash(hash)).toBeUndefined();
      expect(await keysOf(stores.storage, `documents/${hash}`)).toEqual([`documents/${hash}.md`]);
      // The dead writer's claim still stands: the sweep leaves its files (an upload in flight looks the same),
      // and tells when the claim ends (the writer's lease, 1.5 s, from its last renewal).
      const first = await files.removeOrphans();
      expect(first.removed).toEqual([]);
      expect(first.held.map((entry) => entry.hash)).toEqual([hash]);
      expect(first.held[0]?.endsInMs).toBeGreaterThan(0);
      expect(first.held[0]?.endsInMs).toBeLessThanOrEqual(1500);
      // Once the claim has ended, whichever instance sweeps next removes them: a look at that hash alone.
      let removed: string[] = [];
      await eventually(async () => {
        ({ removed } = await files.removeOrphans([hash]));
        return removed.length > 0;
      }, 10_000);
      expect(removed.sort()).toEqual([
        `documents/${hash}.md`,
        `events/${hash}/index.html`,
        `events/${hash}/index.json`,
      ]);
      expect(await keysOf(stores.storage, '')).toEqual([]);
      // And the file can be signed again.
      const record = await files.sign(bytes, 'killed.md');
      expect(record.hash).toBe(hash);
    });
  });
}
