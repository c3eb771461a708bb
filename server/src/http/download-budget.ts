import {
  DEFAULT_DOWNLOAD_BUFFERED_BYTES,
  DOWNLOAD_CHUNK_BYTES,
  DOWNLOAD_WINDOW_BYTES,
} from '../config/setting-values.js';
import { ApiError } from './api-error.js';
import { BUSY_RETRY_AFTER_SECONDS, UploadAdmission } from './middleware/admission.js';

export { DEFAULT_DOWNLOAD_BUFFERED_BYTES, DOWNLOAD_CHUNK_BYTES, DOWNLOAD_WINDOW_BYTES };

/**
 * Bytes all downloads together hash and hand to their connections per turn of the event loop (~3 ms of
 * SHA-256 at 420 MB/s, this project's 2-core machine); the rest wait for the next turn, in order. Without
 * it every download whose chunk was read took its turn in the same pass: with 120 downloads one pass took
 * ~100 ms, and a verify request waited for several of them (measured: mean 102 ms, worst 1 s).
 */
export const DOWNLOAD_TURN_BYTES = 1024 * 1024;

/** How long a download waits for room in the budget before it is answered 503 `SERVER_BUSY`. */
export const DOWNLOAD_WAIT_MS = 2000;

/** Options of {@link DownloadBudget}. */
export interface DownloadBudgetOptions {
  /**
   * Bytes of stored files all downloads may hold at once (`MAX_DOWNLOAD_BUFFERED_BYTES`), at least one
   * {@link DOWNLOAD_WINDOW_BYTES}; default {@link DEFAULT_DOWNLOAD_BUFFERED_BYTES}.
   */
  maxBufferedBytes?: number;
  /** How long a download waits for room before 503 (default {@link DOWNLOAD_WAIT_MS}; 0: at once). */
  maxWaitMs?: number;
}

/** A snapshot of {@link DownloadBudget}: what `GET /api/downloads` answers. */
export interface DownloadUsage {
  /** Downloads admitted and not yet ended. */
  downloads: number;
  /** Downloads waiting for room. */
  waiting: number;
  /** Bytes the admitted downloads reserved (each at most {@link DOWNLOAD_WINDOW_BYTES}). */
  reservedBytes: number;
  /** Bytes they hold now: read from the store and not yet taken by their connections. */
  bufferedBytes: number;
  /** The most {@link bufferedBytes} has been since the server started. */
  peakBufferedBytes: number;
  /** The budget, `MAX_DOWNLOAD_BUFFERED_BYTES`. */
  maxBufferedBytes: number;
  /** Downloads answered 503 `SERVER_BUSY` since the start (not those whose client left while waiting). */
  refused: number;
  /** Responses cut off since the start: the file's bytes no longer matched its hash as they were sent. */
  cutOff: number;
}

/** One admitted download's share of the {@link DownloadBudget}. */
export interface DownloadSlot {
  /** The bytes reserved: the most this download may hold. */
  readonly reservedBytes: number;
  /** Report what this download holds now (read from the store, not yet taken by its connection). */
  hold(bytes: number): void;
  /**
   * Wait, when it must, for the turn to hash and send `bytes` (see {@link DOWNLOAD_TURN_BYTES}): `undefined`
   * when there is room in this turn of the event loop, else a promise of the next turn with room.
   */
  turn(bytes: number): Promise<void> | undefined;
  /** Count this download as cut off (see {@link DownloadUsage.cutOff}). */
  markCutOff(): void;
  /** The download has ended (sent, cut off or abandoned): its bytes and reservation are free. Idempotent. */
  release(): void;
}

/**
 * The memory budget of downloads (`GET /{hash}` and the other file routes): each download reserves what it
 * may hold at once — {@link DOWNLOAD_WINDOW_BYTES}, or the file's size when smaller — before the first byte is
 * read, and holds it until it ends, so all of them together never hold more than `maxBufferedBytes`. A
 * download that does not fit waits, in order, up to `maxWaitMs`; then, or when as many wait as could be
 * admitted, it is refused with 503 `SERVER_BUSY` and `Retry-After`. The waiting line and the reservations are
 * {@link UploadAdmission}'s (uploads have their own instance and budget); this adds what downloads report:
 * the bytes they actually hold, the peak, the refusals and the responses cut off.
 *
 * @example
 * ```ts
 * const budget = new DownloadBudget({ maxBufferedBytes: 64 << 20 });
 * const slot = await budget.admit(size, request.signal);
 * try { … slot.hold(bytes) … } finally { slot.release(); }
 * ```
 */
export class DownloadBudget {
  readonly #admission: UploadAdmission;
  readonly #maxBufferedBytes: number;
  #buffered = 0;
  #peak = 0;
  #refused = 0;
  #cutOff = 0;
  /** Bytes granted in this turn of the event loop, the downloads waiting for a later one, and its timer. */
  #turnBytes = 0;
  readonly #turnWaiting: Array<{ bytes: number; resume: () => void }> = [];
  #turnScheduled = false;

  constructor(options: DownloadBudgetOptions = {}) {
    const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_DOWNLOAD_BUFFERED_BYTES;
    if (!Number.isSafeInteger(maxBufferedBytes) || maxBufferedBytes < DOWNLOAD_WINDOW_BYTES) {
      throw new Error(
        `DownloadBudget: maxBufferedBytes must be an integer of at least ${DOWNLOAD_WINDOW_BYTES} (one download), got \`${maxBufferedBytes}\``,
      );
    }
    this.#maxBufferedBytes = maxBufferedBytes;
    this.#admission = new UploadAdmission({
      // Only the bytes bound downloads: many small files may be sent at once.
      maxInFlight: Number.MAX_SAFE_INTEGER,
      maxBufferedBytes,
      maxWaitMs: options.maxWaitMs ?? DOWNLOAD_WAIT_MS,
      // As many may wait as fit at once: a longer line would wait longer than `maxWaitMs` anyway.
      maxWaiting: Math.floor(maxBufferedBytes / DOWNLOAD_WINDOW_BYTES),
    });
  }

  /** What the downloads reserve and hold now, and the counts since the start. */
  get usage(): DownloadUsage {
    const { inFlight, bufferedBytes, waiting } = this.#admission.usage;
    return {
      downloads: inFlight,
      waiting,
      reservedBytes: bufferedBytes,
      bufferedBytes: this.#buffered,
      peakBufferedBytes: this.#peak,
      maxBufferedBytes: this.#maxBufferedBytes,
      refused: this.#refused,
      cutOff: this.#cutOff,
    };
  }

  /**
   * Admit a download of a `size`-byte file; resolves to its slot once it fits. `signal` withdraws a waiting
   * download (the client left).
   *
   * @throws {ApiError} 503 `SERVER_BUSY` (with `retry_after`) when it did not fit within `maxWaitMs`.
   */
  async admit(size: number, signal?: AbortSignal): Promise<DownloadSlot> {
    const reservedBytes = Math.max(1, Math.min(size, DOWNLOAD_WINDOW_BYTES));
    let free: () => void;
    try {
      free = await this.#admission.acquire(reservedBytes, signal);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (signal?.aborted !== true) this.#refused++; // else the client left: nobody is answered
      throw new ApiError(
        503,
        'SERVER_BUSY',
        `The server is busy with other downloads; retry in ${BUSY_RETRY_AFTER_SECONDS} s`,
        { retry_after: BUSY_RETRY_AFTER_SECONDS },
      );
    }
    let held = 0;
    let released = false;
    const hold = (bytes: number) => {
      if (released) return;
      this.#buffered += bytes - held;
      held = bytes;
      if (this.#buffered > this.#peak) this.#peak = this.#buffered;
    };
    return {
      reservedBytes,
      hold,
      turn: (bytes) => this.#turn(bytes),
      markCutOff: () => {
        this.#cutOff++;
      },
      release: () => {
        hold(0);
        if (released) return;
        released = true;
        free();
      },
    };
  }

  #turn(bytes: number): Promise<void> | undefined {
    this.#scheduleTurn();
    if (this.#turnWaiting.length === 0 && this.#turnBytes < DOWNLOAD_TURN_BYTES) {
      this.#turnBytes += bytes;
      return undefined;
    }
    return new Promise((resume) => this.#turnWaiting.push({ bytes, resume }));
  }

  /**
   * A new turn starts in the event loop's check phase (`setImmediate`): after the poll phase has run the
   * I/O that was ready — other requests among it. The downloads waiting are resumed there, in order, up to
   * {@link DOWNLOAD_TURN_BYTES}; what they take counts for the turn that follows, until the next check phase.
   */
  #scheduleTurn(): void {
    if (this.#turnScheduled) return;
    this.#turnScheduled = true;
    setImmediate(() => {
      this.#turnScheduled = false;
      this.#turnBytes = 0;
      while (this.#turnWaiting.length > 0 && this.#turnBytes < DOWNLOAD_TURN_BYTES) {
        const next = this.#turnWaiting.shift() as { bytes: number; resume: () => void };
        this.#turnBytes += next.bytes;
        next.resume();
      }
      if (this.#turnBytes > 0) this.#scheduleTurn();
    });
  }
}
