/** One upload token as the store keeps it: never the token itself, only its SHA-256. */
export interface UploadTokenRecord {
  /** SHA-256 of the token, lowercase hex (primary key). */
  hash: string;
  /** The one origin the token may be used from, serialized (`https://app.example`). */
  origin: string;
  /** How many uploads the token admits in all. */
  uses: number;
  /** How many it admitted so far (never more than `uses`). */
  used: number;
  /** When it stops working, Unix ms. */
  expiresAt: number;
  /** When it was minted, Unix ms. */
  createdAt: number;
}

/**
 * The short-lived upload tokens browsers sign with (`POST /api/upload-tokens`). Part of the record store, so
 * tokens and their use counts hold across instances once the store is shared (PostgreSQL).
 */
export interface UploadTokenStore {
  /** Keep a newly minted token (`used` is 0). */
  insertUploadToken(token: Omit<UploadTokenRecord, 'used'>): Promise<void>;
  /** The token with this hash, expired or not; `undefined` when unknown (or swept). */
  findUploadToken(hash: string): Promise<UploadTokenRecord | undefined>;
  /**
   * Take one use of the token, atomically: it succeeds only while `used < uses` and `expiresAt > now`, so
   * parallel requests, on any instance, never take more than `uses`. Resolves with the token after the use,
   * or `undefined` when it is unknown, expired or used up (nothing changed).
   */
  useUploadToken(hash: string, now: number): Promise<UploadTokenRecord | undefined>;
  /** Remove the tokens that expired at or before `before` (Unix ms); resolves with how many. */
  removeExpiredUploadTokens(before: number): Promise<number>;
}
