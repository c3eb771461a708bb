// The orphan sweeper's schedule (issue 34 §2): a full sweep at start and every `everyMs`, and a look at the
// hashes a sweep had to leave (their claim held) once the earliest of those claims ends — on fake timers,
// against a scripted sweep.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OrphanSweep } from '../src/signing/file-signer.js';
import { AFTER_CLAIM_ENDS_MS, HELD_RETRY_MS, OrphanSweeper } from '../src/signing/orphan-sweeper.js';

/** A sweep that answers what `script` says for the hashes asked (`undefined`: all), and logs each call. */
function scriptedSweep(script: (hashes: readonly string[] | undefined) => OrphanSweep | Error) {
  const calls: { at: number; hashes: readonly string[] | undefined }[] = [];
  const removeOrphans = async (hashes?: readonly string[]) => {
    calls.push({ at: Date.now(), hashes });
    const answer = script(hashes);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { calls, removeOrphans };
}

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const nothing: OrphanSweep = { removed: [], held: [] };

describe('OrphanSweeper', () => {
  let sweeper: OrphanSweeper | undefined;
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    sweeper?.stop();
    vi.useRealTimers();
  });

  it('sweeps at start and every everyMs', async () => {
    const sweep = scriptedSweep(() => nothing);
    sweeper = new OrphanSweeper({ removeOrphans: sweep.removeOrphans, everyMs: 60_000, warn: () => {} });
    sweeper.start();
    await vi.advanceTimersByTimeAsync(150_000);
    expect(sweep.calls).toEqual([
      { at: 0, hashes: undefined },
      { at: 60_000, hashes: undefined },
      { at: 120_000, hashes: undefined },
    ]);
  });

  it('looks at held hashes again once the earliest claim ends, not at the next full sweep', async () => {
    const warnings: string[] = [];
    // At start A's claim ends in 5 s and B's in 20 s; A's dead writer is gone when looked at, B is still held.
    const sweep = scriptedSweep((hashes) => {
      if (hashes === undefined)
        return {
          removed: [],
          held: [
            { hash: B, endsInMs: 20_000 },
            { hash: A, endsInMs: 5_000 },
          ],
        };
      if (hashes.includes(B) && Date.now() < 20_000)
        return { removed: [`documents/${A}.md`], held: [{ hash: B, endsInMs: 20_000 - Date.now() }] };
      return { removed: [`documents/${B}.md`], held: [] };
    });
    sweeper = new OrphanSweeper({
      removeOrphans: sweep.removeOrphans,
      everyMs: 3_600_000,
      warn: (message) => warnings.push(message),
    });
    sweeper.start();
    await vi.advanceTimersByTimeAsync(5_000 + AFTER_CLAIM_ENDS_MS - 1);
    expect(sweep.calls).toHaveLength(1);
    expect(sweeper.waiting.slice().sort()).toEqual([A, B]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sweep.calls[1]).toEqual({ at: 5_000 + AFTER_CLAIM_ENDS_MS, hashes: [B, A] });
    expect(sweeper.waiting).toEqual([B]);
    await vi.advanceTimersByTimeAsync(20_000 + AFTER_CLAIM_ENDS_MS - Date.now());
    expect(sweep.calls[2]).toEqual({ at: 20_000 + AFTER_CLAIM_ENDS_MS, hashes: [B] });
    expect(sweeper.waiting).toEqual([]);
    expect(warnings).toEqual([
      `Removed 1 stored file(s) without a record: documents/${A}.md`,
      `Removed 1 stored file(s) without a record: documents/${B}.md`,
    ]);
    // Nothing held: no more looks until the next full sweep.
    await vi.advanceTimersByTimeAsync(3_600_000 - Date.now() - 1);
    expect(sweep.calls).toHaveLength(3);
  });

  it('keeps held hashes through a failed look and tries again; stop() ends every timer', async () => {
    const warnings: string[] = [];
    let failing = true;
    const sweep = scriptedSweep((hashes) => {
      if (hashes === undefined) return { removed: [], held: [{ hash: A, endsInMs: 1_000 }] };
      return failing ? new Error('database away') : { removed: [`documents/${A}.md`], held: [] };
    });
    sweeper = new OrphanSweeper({
      removeOrphans: sweep.removeOrphans,
      everyMs: 0,
      warn: (message) => warnings.push(message),
    });
    sweeper.start();
    await vi.advanceTimersByTimeAsync(1_000 + AFTER_CLAIM_ENDS_MS);
    expect(warnings).toEqual(['Orphan sweep failed, tried again later: database away']);
    expect(sweeper.waiting).toEqual([A]);
    failing = false;
    await vi.advanceTimersByTimeAsync(HELD_RETRY_MS + AFTER_CLAIM_ENDS_MS);
    expect(sweep.calls.map((call) => call.hashes)).toEqual([undefined, [A], [A]]);
    expect(sweeper.waiting).toEqual([]);

    // Stopped with a look pending: it never comes.
    const stopped = scriptedSweep(() => ({ removed: [], held: [{ hash: B, endsInMs: 1_000 }] }));
    const other = new OrphanSweeper({
      removeOrphans: stopped.removeOrphans,
      everyMs: 10_000,
      warn: () => {},
    });
    other.start();
    await vi.advanceTimersByTimeAsync(0);
    other.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stopped.calls).toHaveLength(1);
  });
});
