import { computeEventId, jsEngine } from '@siegel/core/crypto';
import type { NostrEvent } from 'nostr-tools/core';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../src/metadata/analyze-file.js';
import { createFileEvent } from '../src/records/file-event.js';
import { documentKey } from '../src/records/public-urls.js';
import {
  bindRecord,
  checkStoredEvent,
  EventVerifier,
  prepareEventChecks,
  RECORD_CLOCK_SLACK_SECONDS,
  RECORD_WRITE_WINDOW_SECONDS,
  verifyRecord,
} from '../src/records/verify-record.js';
import { recordFor } from '../src/signing/file-signer.js';
import type { SignedFileRecord } from '../src/storage/record-store.js';
import { BASE_URL, makeTestApp, readFixture } from './test-app.js';

const HASH = 'ab'.repeat(32);

function signedEvent(): NostrEvent {
  return jsEngine.signEvent(
    { kind: 1063, created_at: 1_700_000_000, tags: [['x', HASH]], content: 'a file' },
    jsEngine.generateSecretKey(),
  );
}

describe('checkStoredEvent', () => {
  // Before and after prepareEventChecks() (pure JS, then core's loaded engine): the same verdicts.
  for (const prepared of [false, true]) {
    it(`verifies id, signature and x tag ${prepared ? 'with the loaded engine' : 'before start-up'}`, async () => {
      if (prepared) await prepareEventChecks();
      const event = signedEvent();
      expect(checkStoredEvent(event, HASH)).toEqual({
        verified: true,
        checks: { event_id: true, signature: true, hash_tag: true },
        reasons: [],
      });
      // Another signature over the same id: the id still matches, the signature does not.
      const forged = { ...event, sig: signedEvent().sig };
      expect(checkStoredEvent(forged, HASH).checks).toEqual({
        event_id: true,
        signature: false,
        hash_tag: true,
      });
      const altered = { ...event, content: 'another file' };
      expect(checkStoredEvent(altered, HASH).checks).toMatchObject({ event_id: false, signature: false });
      expect(checkStoredEvent(event, 'cd'.repeat(32)).checks.hash_tag).toBe(false);
    });
  }

  it('refuses an event with a mistyped field as altered, even when its id is computed over it', () => {
    const event = signedEvent();
    const mistyped = { ...event, created_at: String(event.created_at) } as unknown as NostrEvent;
    mistyped.id = computeEventId(mistyped);
    expect(checkStoredEvent(mistyped, HASH).checks.event_id).toBe(false);
  });
});

describe('EventVerifier', () => {
  it('is built per app: two apps in one process share no verifier (memo and engine)', async () => {
    const [a, b] = [await makeTestApp(), await makeTestApp()];
    try {
      expect(a.verifier).toBeInstanceOf(EventVerifier);
      expect(b.verifier).toBeInstanceOf(EventVerifier);
      expect(a.verifier).not.toBe(b.verifier);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('gives the same verdicts prepared and not, each on its own', async () => {
    const [prepared, fresh] = [new EventVerifier(), new EventVerifier()];
    await prepared.prepare();
    const event = signedEvent();
    const forged = { ...event, sig: signedEvent().sig };
    for (const verifier of [prepared, fresh]) {
      expect(verifier.checkStoredEvent(event, HASH).verified).toBe(true);
      expect(verifier.checkStoredEvent(forged, HASH).checks.signature).toBe(false);
      // Remembered once verified, and still refused when forged after.
      expect(verifier.checkStoredEvent(event, HASH).verified).toBe(true);
      expect(verifier.checkStoredEvent(forged, HASH).verified).toBe(false);
    }
  });
});

const SECRET = jsEngine.generateSecretKey();

/** A record of a fixture as the file signer writes it: analyzed, its event signed, stored under its key. */
async function signedRecord(fixture: string, fileName = fixture) {
  const bytes = await readFixture(fixture);
  const analysis = analyzeFile(bytes, fileName);
  const fileKey = documentKey(analysis.hash, analysis.type.extension);
  const event = jsEngine.signEvent(createFileEvent(analysis, `${BASE_URL}/${fileKey}`, fileName), SECRET);
  const record = recordFor(analysis, event, fileName, event.created_at + 1);
  return { record, digest: { sha256: analysis.hash, size: bytes.length } };
}

describe('bindRecord and verifyRecord', () => {
  it('binds a record as the signer writes it to itself, and verifies it', async () => {
    for (const fixture of ['png-author.png', 'txt-author.txt', 'pdf-utf16-author.pdf']) {
      const { record, digest } = await signedRecord(fixture);
      expect(bindRecord(record), fixture).toEqual(record);
      expect(verifyRecord(record, bindRecord(record), digest), fixture).toEqual({
        verified: true,
        checks: { event_id: true, signature: true, hash_tag: true, fields: true, file: true },
        reasons: [],
        verdict: 'valid',
        problems: [],
      });
    }
  });

  it('names each stored field that no longer matches the signed event, and reports the signed value', async () => {
    const { record, digest } = await signedRecord('png-author.png');
    const otherKey = jsEngine.signEvent({ kind: 1, created_at: 0, tags: [], content: '' }, SECRET);
    const cases: Array<[string, Partial<SignedFileRecord>, keyof SignedFileRecord]> = [
      ['event_id', { eventId: 'f'.repeat(64) }, 'eventId'],
      ['pubkey', { pubkey: otherKey.id }, 'pubkey'],
      ['file_type', { fileType: 'document' }, 'fileType'],
      ['mime_type', { mimeType: 'image/gif' }, 'mimeType'],
      ['size_bytes', { sizeBytes: record.sizeBytes + 1 }, 'sizeBytes'],
      ['width', { width: 999 }, 'width'],
      ['height', { height: undefined }, 'height'],
      ['authors', { authors: ['Mallory Forger'] }, 'authors'],
      ['authors', { authors: [...record.authors, 'Mallory Forger'] }, 'authors'],
      ['title', { title: 'Forged Title' }, 'title'],
      ['description', { description: undefined }, 'description'],
      ['file_key', { fileKey: `documents/${'e'.repeat(64)}.png` }, 'fileKey'],
    ];
    for (const [column, change, field] of cases) {
      const stored = { ...record, ...change };
      const bound = bindRecord(stored);
      const verdict = verifyRecord(stored, bound, digest);
      expect(verdict.verified, column).toBe(false);
      expect(verdict.checks, column).toEqual({
        event_id: true,
        signature: true,
        hash_tag: true,
        fields: false,
        file: true,
      });
      expect(verdict.reasons, column).toHaveLength(1);
      expect(verdict.verdict, column).toBe('invalid');
      expect(verdict.problems, column).toEqual([
        { code: 'file.record', severity: 'error', message: verdict.reasons[0] },
      ]);
      expect(verdict.reasons[0], column).toMatch(
        new RegExp(`^\`${column}\` does not match the signed event`),
      );
      // What is reported is what the event signed, not the stored field.
      expect(bound[field], column).toEqual(record[field]);
    }
  });

  it('binds the upload’s name when the file has no title of its own', async () => {
    const { record, digest } = await signedRecord('txt-author.txt', 'notes.txt');
    const stored = { ...record, fileName: 'forged.txt' };
    const verdict = verifyRecord(stored, bindRecord(stored), digest);
    expect(verdict.reasons).toEqual([
      '`file_name` does not match the signed event: stored `forged.txt`, signed `notes.txt` (with no stored `title`, the name stands for it).',
    ]);
    expect(bindRecord(stored).fileName).toBe('notes.txt');
    // A stored title where the file had none is a changed title.
    const titled = { ...record, title: 'Forged Title' };
    expect(verifyRecord(titled, bindRecord(titled), digest).reasons[0]).toMatch(/^`title` does not match/);
  });

  it('holds created_at to the time its event was signed', async () => {
    const { record, digest } = await signedRecord('gif-author.gif');
    const at = record.event.created_at;
    for (const [createdAt, ok] of [
      [at, true],
      [at + RECORD_WRITE_WINDOW_SECONDS, true],
      [at - RECORD_CLOCK_SLACK_SECONDS, true],
      [at + RECORD_WRITE_WINDOW_SECONDS + 1, false],
      [at - 86_400, false],
      [0, false],
    ] as const) {
      const stored = { ...record, createdAt };
      const verdict = verifyRecord(stored, bindRecord(stored), digest);
      expect(verdict.verified, String(createdAt)).toBe(ok);
      if (!ok) expect(verdict.reasons[0]).toMatch(/^`created_at` does not match the signed event/);
    }
  });

  it('checks the stored file: missing, other bytes, unreadable', async () => {
    const { record } = await signedRecord('png-author.png');
    const bound = bindRecord(record);
    const missing = verifyRecord(record, bound, undefined);
    expect(missing.checks.file).toBe(false);
    expect(missing.reasons).toEqual([`The stored file \`documents/${record.hash}.png\` is missing.`]);
    const other = verifyRecord(record, bound, { sha256: 'a'.repeat(64), size: 3 });
    expect(other.reasons).toEqual([
      `The stored file's bytes do not match the hash: their SHA-256 is \`${'a'.repeat(64)}\` (3 bytes).`,
    ]);
    const unreadable = verifyRecord(record, bound, undefined, 'EISDIR: illegal operation on a directory');
    expect(unreadable.reasons[0]).toMatch(/cannot be read: EISDIR/);
    expect(unreadable.verified).toBe(false);
    // Bytes that could not be read are an outage; other bytes are an altered file.
    const codes = (verdict: typeof missing) => [verdict.verdict, ...verdict.problems.map((p) => p.code)];
    expect(codes(missing)).toEqual(['not_found', 'file.unreadable']);
    expect(codes(unreadable)).toEqual(['not_found', 'file.unreadable']);
    expect(codes(other)).toEqual(['invalid', 'file.bytes']);
  });

  it('refuses another file’s valid event in the record, naming the hash tag and the fields', async () => {
    const { record, digest } = await signedRecord('png-author.png');
    const { record: other } = await signedRecord('jpeg-multi-author.jpg');
    const stored = { ...record, event: other.event };
    const verdict = verifyRecord(stored, bindRecord(stored), digest);
    expect(verdict.checks).toMatchObject({ event_id: true, signature: true, hash_tag: false, fields: false });
    expect(verdict.problems[0]?.code).toBe('file.hash');
    expect(new Set(verdict.problems.map((problem) => problem.code))).toEqual(
      new Set(['file.hash', 'file.record']),
    );
    const reasons = verdict.reasons.join('\n');
    for (const column of ['event_id', 'mime_type', 'authors', 'title', 'file_key']) {
      expect(reasons).toContain(`\`${column}\` does not match`);
    }
    expect(bindRecord(stored).authors).toEqual(other.authors);
  });

  it('reads an event altered into any JSON as not verified, without throwing', async () => {
    const { record, digest } = await signedRecord('png-author.png');
    for (const [event, code] of [
      [{}, 'file.malformed'],
      [{ tags: 'x' }, 'file.malformed'],
      [{ tags: [null, 'x', ['x']] }, 'file.malformed'],
      [{ ...record.event, kind: 1 }, 'file.event_id'],
    ] as const) {
      const stored = { ...record, event: event as NostrEvent };
      const verdict = verifyRecord(stored, bindRecord(stored), digest);
      expect(verdict.verified, JSON.stringify(event)).toBe(false);
      expect(verdict.reasons.length).toBeGreaterThan(0);
      expect(verdict.verdict).toBe('invalid');
      expect(verdict.problems[0]?.code, JSON.stringify(event)).toBe(code);
    }
  });
});
