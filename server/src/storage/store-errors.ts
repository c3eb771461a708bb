/**
 * A store (the database or the object storage) cannot be reached or answered with a failure that is not
 * this request's fault: the request is answered 503 `STORE_UNAVAILABLE` with `Retry-After`, and the server
 * goes on (it recovers by itself when the store is back). `cause` keeps the driver's error for the log.
 */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Thrown by `RecordStore.insert` when the claim it was given (`claimHash`) is no longer held: it expired and
 * another writer (or the orphan sweep) took the hash over. Nothing was written; the files stored under the claim may be that
 * writer's now and must be left alone.
 */
export class ClaimLostError extends Error {
  constructor(readonly hash: string) {
    super(`The claim on \`${hash}\` was taken over before its record was written`);
    this.name = 'ClaimLostError';
  }
}
