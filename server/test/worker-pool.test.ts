import { afterEach, describe, expect, it } from 'vitest';
import { WorkerCrashError, WorkerPool, WorkerTimeoutError } from '../src/analysis/worker-pool.js';

const TEST_WORKER = new URL('./support/test-worker.mjs', import.meta.url);
const BROKEN_WORKER = new URL('./support/broken-worker.mjs', import.meta.url);

type Task = {
  sleep?: number;
  burn?: number;
  spin?: boolean;
  throw?: string;
  grow?: boolean;
  echo?: ArrayBuffer;
};
// biome-ignore lint/suspicious/noExplicitAny: the test worker answers a different shape per task
type Result = any;

describe('WorkerPool: tasks off the event loop, each under a time budget', () => {
  const pools: WorkerPool<Task, Result>[] = [];
  const makePool = (options: Partial<ConstructorParameters<typeof WorkerPool>[0]> = {}) => {
    const pool = new WorkerPool<Task, Result>({
      script: TEST_WORKER,
      size: 1,
      timeoutMs: 10_000,
      ...options,
    });
    pools.push(pool);
    return pool;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });

  it('moves a buffer to the worker and back without copying it', async () => {
    const pool = makePool();
    const buffer = new Uint8Array([1, 2, 3, 4, 5]).buffer;
    const result = await pool.run({ echo: buffer }, [buffer]);
    expect(buffer.byteLength).toBe(0); // moved away (detached) …
    expect(result.length).toBe(5);
    expect([...new Uint8Array(result.buffer)]).toEqual([1, 2, 3, 4, 5]); // … and back
  });

  it('terminates a worker that overruns its CPU budget, fails that task, and replaces the worker', async () => {
    // 300 ms of CPU, a task that never ends: it fails once it has used that (the event loop stays free).
    // The wall-clock cap is out of the way (by default 10 × the budget, which a loaded machine can reach
    // before the worker has had 300 ms of a core): the CPU clock must be the one that stops it.
    const pool = makePool({ timeoutMs: 300, wallTimeoutMs: 600_000 });
    const started = Date.now();
    const failing = pool.run({ spin: true }).catch((error: unknown) => error);
    // The main thread kept running while the worker spun: a timer due after 50 ms fired before the task
    // failed (at 300 ms of CPU at the earliest), which a task run on the main thread would have blocked.
    const timer = new Promise((resolve) => setTimeout(() => resolve('timer'), 50));
    expect(await Promise.race([timer, failing])).toBe('timer');
    const failure = await failing;
    expect(failure).toBeInstanceOf(WorkerTimeoutError);
    expect((failure as WorkerTimeoutError).clock).toBe('cpu');
    // CPU time never runs ahead of wall-clock time: at least 300 ms passed (a lower bound: a busy machine
    // only adds to it). Counting the process's CPU instead of the worker's would stop it sooner.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    // A fresh worker answers the next task.
    await expect(pool.run({ sleep: 1 })).resolves.toEqual({ slept: 1 });
    expect(pool.workerCount).toBe(1);
  });

  it('gives each task its own budget, counted from when a worker takes it', async () => {
    // One worker, four tasks of 200 ms of CPU each under a 500 ms budget: together 800 ms, all succeed.
    // (Only the CPU clock: its wall-clock cap out of the way, as a loaded machine could reach it.)
    const pool = makePool({ timeoutMs: 500, wallTimeoutMs: 600_000 });
    const results = await Promise.all([1, 2, 3, 4].map(() => pool.run({ burn: 200 })));
    expect(results).toEqual([{ burnt: 200 }, { burnt: 200 }, { burnt: 200 }, { burnt: 200 }]);
  });

  it('caps the wall-clock time of a task that uses no CPU (wallTimeoutMs)', async () => {
    const pool = makePool({ timeoutMs: 100, wallTimeoutMs: 300 });
    const failure = await pool.run({ sleep: 5000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkerTimeoutError);
    expect((failure as WorkerTimeoutError).clock).toBe('wall');
    await expect(pool.run({ sleep: 1 })).resolves.toEqual({ slept: 1 });
  });

  it('fails the task of a worker that throws, and carries on with a new one', async () => {
    const pool = makePool();
    const failure = await pool.run({ throw: 'boom' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkerCrashError);
    expect((failure as Error).message).toContain('boom');
    await expect(pool.run({ sleep: 1 })).resolves.toEqual({ slept: 1 });
  });

  it('names heap exhaustion (the worker is stopped, not the process)', async () => {
    const pool = makePool({ resourceLimits: { maxOldGenerationSizeMb: 32 } });
    const failure = await pool.run({ grow: true }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkerCrashError);
    expect((failure as WorkerCrashError).reason).toBe('ERR_WORKER_OUT_OF_MEMORY');
    await expect(pool.run({ sleep: 1 })).resolves.toEqual({ slept: 1 });
  });

  it('keeps at most `size` workers, and start() starts them all ahead of use', async () => {
    const pool = makePool({ size: 2 });
    await pool.start();
    expect(pool.workerCount).toBe(2);
    await Promise.all([1, 2, 3, 4, 5].map(() => pool.run({ sleep: 20 })));
    expect(pool.workerCount).toBe(2);
  });

  it('fails tasks (instead of hanging or spawning forever) when the script cannot start', async () => {
    const pool = new WorkerPool<Task, Result>({ script: BROKEN_WORKER, size: 2, timeoutMs: 1000 });
    pools.push(pool);
    await expect(pool.run({ sleep: 1 })).rejects.toThrow(/broken on purpose|exited/);
    expect(pool.workerCount).toBe(0);
  });

  it('close() fails what still waits and refuses new tasks', async () => {
    const pool = makePool();
    const outcomes = Promise.allSettled([pool.run({ sleep: 200 }), pool.run({ sleep: 1 })]);
    await pool.close();
    for (const outcome of await outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/closed/);
    }
    await expect(pool.run({ sleep: 1 })).rejects.toThrow(/closed/);
  });

  it('refuses a size or budget that is not positive, quoting it', () => {
    expect(() => new WorkerPool({ script: TEST_WORKER, size: 0, timeoutMs: 1 })).toThrow('`0`');
    expect(() => new WorkerPool({ script: TEST_WORKER, size: 1, timeoutMs: -5 })).toThrow('`-5`');
  });
});
