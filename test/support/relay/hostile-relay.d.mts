/** A running {@link startHostileRelay}. */
export interface HostileRelay {
  /** `ws://127.0.0.1:PORT` */
  url: string;
  /** The filters of every `REQ` it got. */
  requests: Record<string, unknown>[];
  /** The path of every connection's request (`/` for `ws://127.0.0.1:PORT`, `/x` for `…:PORT/x`). */
  paths: string[];
  closeCodes: number[];
  /** Per ended connection, as `closeCodes`: bytes of messages over {@link FRAGMENT_BYTES} sent on it. */
  largeBytesSent: number[];
  connections(): number;
  close(): Promise<void>;
}

/**
 * Messages over this many bytes go out in fragments of this size, the next only once the client answered a
 * ping after the last: a client capping messages at `cap` (a multiple of it) refuses one after exactly
 * `cap + FRAGMENT_BYTES` bytes of it, and the relay reads its close frame (1009) without a send of its own
 * in flight.
 */
export const FRAGMENT_BYTES: number;

/** A relay that answers every `REQ` with `answer(filter)` (forged events, other ids), then `EOSE`. */
export function startHostileRelay(
  answer: (filter: Record<string, unknown>) => unknown[],
): Promise<HostileRelay>;

/** A running hostile relay of {@link startOversizedRelay} or {@link startHostileSigner}. */
export interface HostileServer {
  /** `ws://127.0.0.1:PORT` */
  url: string;
  /** The close code of every connection that ended (1009: the client refused a message as too big). */
  closeCodes: number[];
  /**
   * Per ended connection, as `closeCodes`: bytes of messages over {@link FRAGMENT_BYTES} the relay sent on
   * it before it ended (the whole message, for a client that took it all).
   */
  largeBytesSent: number[];
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A relay answering every message with one NOTICE of `bytes` bytes (default 64 MiB); with `flood` false
 * it answers `OK` true and `EOSE` instead.
 */
export function startOversizedRelay(bytes?: number): Promise<HostileServer & { flood: boolean }>;

/**
 * A relay that is also a NIP-46 signer replying to every request with `reply(...)` as its content;
 * `delayMs` holds back each `OK` and each reply.
 */
export function startHostileSigner(
  reply: (
    request: { id: string; method: string; params: string[] },
    keys: { secretKey: Uint8Array; client: string },
  ) => string,
  options?: { delayMs?: number },
): Promise<
  HostileServer & {
    pubkey: string;
    secretKey: Uint8Array;
    requests: Array<{ id: string; method: string; params: string[] }>;
    /** `bunker://PUBKEY?relay=ws://…&secret=s3cret` */
    uri: string;
  }
>;
