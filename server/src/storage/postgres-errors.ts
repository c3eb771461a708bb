import { StoreUnavailableError } from './store-errors.js';

/** Error codes of Node's sockets and of the `postgres` driver that mean: the connection failed or broke. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_ENDED',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** SQLSTATEs of a server going away: admin shutdown, crash shutdown, cannot connect now (starting up). */
const SHUTDOWN_STATES = new Set(['57P01', '57P02', '57P03']);

/**
 * Whether `error` says the database cannot be reached now (connection refused, reset, timed out, closed,
 * SQLSTATE class 08, the server shutting down or starting) rather than that the statement was wrong.
 */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errors } = error as { code?: unknown; errors?: unknown };
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || SHUTDOWN_STATES.has(code))) return true;
  if (typeof code === 'string' && /^08[0-9A-Z]{3}$/.test(code)) return true;
  // Node's happy-eyeballs connect fails with an AggregateError of one error per address.
  return Array.isArray(errors) && errors.length > 0 && errors.every(isConnectionError);
}

/**
 * `error` as the store reports it: a connection failure becomes a {@link StoreUnavailableError} whose
 * one-line message names `where` (`host:port`, never the URL with its password), with the driver's
 * error as `cause`; anything else is returned as it is.
 */
export function toStoreError(error: unknown, where: string): unknown {
  if (!isConnectionError(error)) return error;
  return new StoreUnavailableError(`Cannot reach PostgreSQL at ${where} (${describe(error)})`, 5, {
    cause: error,
  });
}

function describe(error: unknown): string {
  const { code, syscall, message } = error as { code?: string; syscall?: string; message?: string };
  const text =
    typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)
      ? `${code} ${message ?? ''}`
      : typeof syscall === 'string' && code
        ? `${syscall} ${code}`
        : (code ?? message ?? String(error));
  return text.replace(/\s+/g, ' ').trim();
}
