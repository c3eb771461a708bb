import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.js';

/** Options of {@link UploadAdmission}. */
export interface AdmissionOptions {
  /** Uploads received, read or signed at once (sign and inspect together). */
  maxInFlight: number;
  /** Bytes of upload bodies held in memory at once (each upload reserves its `Content-Length`, or the limit). */
  maxBufferedBytes: number;
  /** How long an upload waits for room before it is answered 503 (0: at once). */
  maxWaitMs: number;
  /** Uploads that may wait at once (default 4 × `maxInFlight`); more are answered 503 at once. */
  maxWaiting?: number;
}

/** Seconds a client is told to wait (`Retry-After`) when the server is busy. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

interface Waiter {
  bytes: number;
  grant: (release: () => void) => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Admission control of uploads: at most `maxInFlight` at once, holding at most `maxBufferedBytes` between
 * them. One that does not fit waits, in order, up to `maxWaitMs`; then, or when too many wait already, it is
 * refused with 503 `SERVER_BUSY` and `Retry-After`. Nothing of its body is read until it is admitted.
 *
 * @example
 * ```ts
 * const admission = new UploadAdmission({ maxInFlight: 8, maxBufferedBytes: 128 << 20, maxWaitMs: 10_000 });
 * const release = await admission.acquire(contentLength);
 * try { … } finally { release(); }
 * ```
 */
export class UploadAdmission {
  private inFlight = 0;
  private buffered = 0;
  private readonly waiting: Waiter[] = [];
  readonly maxWaiting: number;

  constructor(readonly options: AdmissionOptions) {
    for (const name of ['maxInFlight', 'maxBufferedBytes'] as const) {
      if (!Number.isInteger(options[name]) || options[name] < 1)
        throw new Error(`UploadAdmission: ${name} must be a positive integer, got \`${options[name]}\``);
    }
    if (!Number.isFinite(options.maxWaitMs) || options.maxWaitMs < 0)
      throw new Error(`UploadAdmission: maxWaitMs must be 0 or more, got \`${options.maxWaitMs}\``);
    this.maxWaiting = options.maxWaiting ?? 4 * options.maxInFlight;
  }

  /** Uploads admitted now, and the bytes they reserved. */
  get usage(): { inFlight: number; bufferedBytes: number; waiting: number } {
    return { inFlight: this.inFlight, bufferedBytes: this.buffered, waiting: this.waiting.length };
  }

  /**
   * Admit an upload that will hold up to `bytes` (clamped to `maxBufferedBytes`); resolves to its release
   * (call it once, when the upload is answered). `signal` withdraws a waiting upload (the client left).
   *
   * @throws {ApiError} 503 `SERVER_BUSY` when it did not fit in time, or too many wait already.
   */
  acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    const reserved = Math.min(Math.max(0, bytes), this.options.maxBufferedBytes);
    if (this.waiting.length === 0 && this.fits(reserved)) return Promise.resolve(this.admit(reserved));
    if (this.waiting.length >= this.maxWaiting || this.options.maxWaitMs === 0) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { bytes: reserved, grant: resolve, timer: undefined };
      const withdraw = (error: Error) => {
        const index = this.waiting.indexOf(waiter);
        if (index === -1) return;
        this.waiting.splice(index, 1);
        clearTimeout(waiter.timer);
        reject(error);
        this.admitWaiting(); // the head may have changed
      };
      waiter.timer = setTimeout(() => withdraw(busy()), this.options.maxWaitMs);
      signal?.addEventListener('abort', () => withdraw(busy()), { once: true }); // the client left
      this.waiting.push(waiter);
    });
  }

  private fits(bytes: number): boolean {
    return this.inFlight < this.options.maxInFlight && this.buffered + bytes <= this.options.maxBufferedBytes;
  }

  private admit(bytes: number): () => void {
    this.inFlight++;
    this.buffered += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.buffered -= bytes;
      this.admitWaiting();
    };
  }

  /** Admit waiting uploads in order while the first one fits (no overtaking: large uploads are not starved). */
  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits((this.waiting[0] as Waiter).bytes)) {
      const waiter = this.waiting.shift() as Waiter;
      clearTimeout(waiter.timer);
      waiter.grant(this.admit(waiter.bytes));
    }
  }
}

function busy(): ApiError {
  return new ApiError(
    503,
    'SERVER_BUSY',
    `The server is busy with other uploads; retry in ${BUSY_RETRY_AFTER_SECONDS} s`,
    { retry_after: BUSY_RETRY_AFTER_SECONDS },
  );
}

/**
 * Admit each upload through `admission` before its body is read: it reserves its `Content-Length` (a body
 * without one reserves `maxRequestBytes`, all it may grow to; one declared larger reserves nothing, since it
 * is only drained and answered 413). Released once the upload is answered, or earlier by the route
 * (`Upload.release`, through the context's `releaseAdmission`). Refusals are 503 `SERVER_BUSY`
 * with `Retry-After`.
 */
export function admitUploads(
  admission: UploadAdmission,
  maxRequestBytes: number,
): MiddlewareHandler<{ Variables: { releaseAdmission: () => void } }> {
  return async function admitUploadsMiddleware(c, next) {
    const declared = Number(c.req.header('Content-Length') ?? Number.NaN);
    const bytes = !Number.isInteger(declared) || declared < 0 ? maxRequestBytes : declared;
    let release: () => void;
    try {
      release = await admission.acquire(bytes > maxRequestBytes ? 0 : bytes, c.req.raw.signal);
    } catch (error) {
      if (error instanceof ApiError) c.header('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
      throw error;
    }
    // The upload may give its slot back before it is answered (`Upload.release`).
    c.set('releaseAdmission', release);
    try {
      await next();
    } finally {
      release();
    }
  };
}
