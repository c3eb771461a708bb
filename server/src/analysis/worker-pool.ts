import { type ResourceLimits, type TransferListItem, Worker } from 'node:worker_threads';

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /**
   * The worker's module. Once loaded it posts `{ ready: true }`; then it answers each `{ id, task }` it
   * receives with `{ id, result }`, one at a time.
   */
  script: URL;
  /** Workers at most (each runs one task at a time). */
  size: number;
  /**
   * CPU time one task may use in its worker; past it the worker is terminated and the task fails. CPU time,
   * not wall-clock time, so that a busy machine does not turn a file that is merely slow to arrive at a core
   * into a refusal (checked every `timeoutMs / 5` ms, at most every 100 ms).
   */
  timeoutMs: number;
  /** Wall-clock time one task may take however little CPU it uses (default 10 × `timeoutMs`). */
  wallTimeoutMs?: number;
  /** V8 heap limits of each worker (past them the worker dies and its task fails). */
  resourceLimits?: ResourceLimits;
}

/** A task that ran past its budget (CPU time, or wall-clock time): its worker was terminated. */
export class WorkerTimeoutError extends Error {
  readonly code = 'worker_timeout';
  constructor(
    readonly timeoutMs: number,
    readonly clock: 'cpu' | 'wall',
  ) {
    super(`The task ran longer than ${timeoutMs} ms of ${clock} time; its worker was terminated`);
    this.name = 'WorkerTimeoutError';
  }
}

/** A worker that died (an uncaught error, out of memory, or exited) while it ran the task. */
export class WorkerCrashError extends Error {
  /** `ERR_WORKER_OUT_OF_MEMORY` when it ran out of its heap; else the error's code, if any. */
  readonly reason: string | undefined;
  constructor(message: string, reason: string | undefined) {
    super(message);
    this.name = 'WorkerCrashError';
    this.reason = reason;
  }
}

interface Job {
  id: number;
  task: unknown;
  transfer: readonly TransferListItem[];
  resolve: (result: never) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | undefined;
  /** The wall-clock timer and the CPU-time check of the running task. */
  timer: NodeJS.Timeout | undefined;
  watch: NodeJS.Timeout | undefined;
}

/**
 * A small pool of `node:worker_threads` workers that run tasks off the event loop, each under a time budget
 * (the worker's CPU time, and a wall-clock cap): a worker that overruns is terminated (and with it whatever
 * it was doing and holding), its task fails with {@link WorkerTimeoutError}, and a fresh worker takes its
 * place. Tasks wait in order for a free worker; the budget starts when a worker takes the task. Workers start
 * on first use, or all at once with {@link start}. Idle workers do not keep the process alive.
 *
 * @example
 * ```ts
 * const pool = new WorkerPool<{ n: number }, number>({ script: new URL('./square.js', import.meta.url), size: 2, timeoutMs: 1000 });
 * await pool.run({ n: 3 }); // 9
 * ```
 */
export class WorkerPool<Task, Result> {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private started = false;
  private closed = false;

  constructor(readonly options: WorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1)
      throw new Error(`WorkerPool: size must be a positive integer, got \`${options.size}\``);
    if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0)
      throw new Error(`WorkerPool: timeoutMs must be a positive number, got \`${options.timeoutMs}\``);
  }

  /** Workers running or starting now. */
  get workerCount(): number {
    return this.slots.size;
  }

  /**
   * Run `task` in a worker, moving `transfer` (e.g. an ArrayBuffer) there without a copy.
   *
   * @throws {WorkerTimeoutError} when the task overran its budget.
   * @throws {WorkerCrashError} when its worker died.
   */
  run(task: Task, transfer: readonly TransferListItem[] = []): Promise<Result> {
    if (this.closed) return Promise.reject(new Error('The worker pool is closed'));
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        task,
        transfer,
        resolve: resolve as (result: never) => void,
        reject,
      });
      this.dispatch();
    });
  }

  /** Start every worker now and wait until each has loaded; from then on a lost worker is replaced at once. */
  async start(): Promise<void> {
    this.started = true;
    while (this.slots.size < this.options.size) this.spawn();
    await Promise.all(
      [...this.slots].map(
        (slot) =>
          new Promise<void>((resolve, reject) => {
            if (slot.ready) return resolve();
            slot.worker.once('message', () => resolve());
            slot.worker.once('error', reject);
            slot.worker.once('exit', (code) =>
              reject(new Error(`A worker exited with ${code} while starting`)),
            );
          }),
      ),
    );
  }

  /** Terminate every worker; tasks still waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('The worker pool is closed'));
    await Promise.all(
      [...this.slots].map((slot) => this.retire(slot, new Error('The worker pool is closed'))),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(this.options.script, {
      ...(this.options.resourceLimits ? { resourceLimits: this.options.resourceLimits } : {}),
    });
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined, watch: undefined };
    this.slots.add(slot);
    worker.unref();
    worker.on('message', (message: { ready?: boolean; id?: number; result?: unknown }) => {
      if (message.ready === true) {
        slot.ready = true;
        this.dispatch();
        return;
      }
      const job = slot.job;
      if (job === undefined || message.id !== job.id) return;
      this.finish(slot);
      job.resolve(message.result as never);
      this.dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      this.lose(slot, new WorkerCrashError(`A worker failed: ${error.message}`, error.code));
    });
    worker.on('exit', (code) => {
      this.lose(slot, new WorkerCrashError(`A worker exited with code ${code}`, undefined));
    });
    return slot;
  }

  /** A worker died on its own. One that never started (a missing or broken script) is not replaced. */
  private lose(slot: Slot, error: WorkerCrashError): void {
    if (!this.slots.has(slot)) return;
    if (slot.ready) {
      void this.retire(slot, error);
      return;
    }
    this.slots.delete(slot);
    // Fail what waits, instead of starting one broken worker after another.
    for (const job of this.queue.splice(0)) job.reject(error);
    void slot.worker.terminate();
  }

  /** The task of `slot` is over: its clocks stop, and the idle worker no longer keeps the process alive. */
  private finish(slot: Slot): void {
    clearTimeout(slot.timer);
    clearTimeout(slot.watch);
    slot.job = undefined;
    slot.timer = undefined;
    slot.watch = undefined;
    slot.worker.unref();
  }

  /** Take `slot` out of the pool, fail its task with `error`, terminate it, and replace it if needed. */
  private async retire(slot: Slot, error: Error): Promise<void> {
    if (!this.slots.delete(slot)) return;
    const job = slot.job;
    this.finish(slot);
    job?.reject(error);
    if (!this.closed && (this.started || this.queue.length > 0)) {
      if (this.started && this.slots.size < this.options.size) this.spawn();
      this.dispatch();
    }
    await slot.worker.terminate();
  }

  /** Start the clocks of `job` on `slot`: its worker's CPU time, polled, and a wall-clock cap. */
  private watch(slot: Slot, job: Job): void {
    const { timeoutMs } = this.options;
    const wallMs = this.options.wallTimeoutMs ?? 10 * timeoutMs;
    slot.timer = setTimeout(() => {
      if (slot.job === job) void this.retire(slot, new WorkerTimeoutError(wallMs, 'wall'));
    }, wallMs);
    const every = Math.max(10, Math.min(100, timeoutMs / 5));
    const cpuMs = async () => {
      const { user, system } = await slot.worker.cpuUsage();
      return (user + system) / 1000;
    };
    const startedAt = cpuMs();
    startedAt.catch(() => {}); // a worker gone before the first check: its own handlers fail the task
    const check = async () => {
      try {
        const used = (await cpuMs()) - (await startedAt);
        if (slot.job !== job) return;
        if (used > timeoutMs) {
          void this.retire(slot, new WorkerTimeoutError(timeoutMs, 'cpu'));
          return;
        }
      } catch {
        // The worker is gone: its 'exit' or 'error' handler fails the task.
        return;
      }
      if (slot.job === job) slot.watch = setTimeout(check, every);
    };
    slot.watch = setTimeout(check, every);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = [...this.slots].find((slot) => slot.ready && slot.job === undefined);
      if (idle === undefined) break;
      const job = this.queue.shift() as Job;
      idle.job = job;
      idle.worker.ref();
      try {
        idle.worker.postMessage({ id: job.id, task: job.task }, job.transfer);
      } catch (error) {
        // The task cannot be sent (e.g. its buffer was already moved elsewhere): it fails, the worker stays.
        this.finish(idle);
        job.reject(error as Error);
        continue;
      }
      this.watch(idle, job);
    }
    // Start workers for what still waits, up to the pool's size (one per waiting task).
    const starting = [...this.slots].filter((slot) => !slot.ready).length;
    for (
      let missing = this.queue.length - starting;
      missing > 0 && this.slots.size < this.options.size;
      missing--
    )
      this.spawn();
  }
}
