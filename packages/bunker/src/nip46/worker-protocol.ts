import { BunkerError, type BunkerErrorCode } from '../errors.js';
import type { Nip46Permissions } from './permissions.js';
import type { StrangerBudgetOptions } from './stranger-budget.js';

/** What the NIP-46 worker is started with (its `workerData`). */
export interface WorkerInit {
  dataDir: string;
  relays: string[];
  budget: StrangerBudgetOptions;
  uriTtlMs: number;
  /** Largest relay message, bytes. */
  maxPayload?: number;
}

/** The admin operations the HTTP thread asks of the worker. */
export interface WorkerCalls {
  offer: [key: string, permissions: Nip46Permissions];
  connections: [];
  pending: [];
  revoke: [key: string, pubkey: string];
  stats: [];
  close: [];
}

/** The key operations the worker asks of the HTTP thread, which holds the keys. */
export interface KeyCalls {
  pubkey: [key: string];
  sign: [key: string, template: unknown, client: string];
  cipher: [key: string, method: string, peer: string, text: string];
}

/** An error sent across: a {@link BunkerError}'s code and message. */
export interface WireError {
  code: BunkerErrorCode;
  message: string;
}

/** HTTP thread → worker. */
export type ToWorker =
  | { type: 'call'; id: number; method: keyof WorkerCalls; args: unknown[] }
  | { type: 'key-reply'; id: number; result?: unknown; error?: WireError };

/** Worker → HTTP thread. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'reply'; id: number; result?: unknown; error?: WireError }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'key'; id: number; method: keyof KeyCalls; args: unknown[] };

/** An error as sent across: a {@link BunkerError} keeps its code and message, anything else is internal. */
export function toWire(error: unknown): WireError {
  return error instanceof BunkerError
    ? { code: error.code, message: error.message }
    : { code: 'internal_error', message: String(error) };
}
