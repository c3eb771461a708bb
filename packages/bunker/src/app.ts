import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { BunkerError, type BunkerErrorCode } from './errors.js';
import type { KeyStore } from './key-store.js';
import { type Logger, silentLogger } from './logger.js';
import type { Nip46Service } from './nip46/nip46-service.js';
import { createAdminApi } from './routes/admin-api.js';
import { createCompatApi } from './routes/compat-api.js';
import { createDashboard } from './routes/dashboard.js';
import { createNip46Api } from './routes/nip46-api.js';
import { createSignApi } from './routes/sign-api.js';
import { type BunkerEnv, createTokenThrottle } from './token-auth.js';

/** Defaults of {@link AppOptions}. */
export const DEFAULTS = {
  /** Most templates in one `POST /api/keys/{name}/sign`. */
  maxBatch: 1000,
  /** Largest request body, in bytes: 8 MiB. */
  maxBodyBytes: 8 * 1024 * 1024,
} as const;

/** What {@link createApp} needs. */
export interface AppOptions {
  /** The keys. */
  store: KeyStore;
  /** Bearer token for listing and signing (≥ 16 characters). */
  apiToken: string;
  /** Bearer token for managing keys and the dashboard (≥ 16 characters, not the API token). */
  adminToken: string;
  /** Most templates in one batch. Default: `1000`. */
  maxBatch?: number;
  /** Largest request body in bytes. Default: 8 MiB. */
  maxBodyBytes?: number;
  /** Where unexpected errors are reported. Default: silent. */
  logger?: Logger;
  /** The NIP-46 side (its connections on `/api/nip46` and the dashboard). Default: none (NIP-46 off). */
  nip46?: Nip46Service;
}

/**
 * The bunker's HTTP app (API v1, compatibility routes, admin dashboard), with errors answered as
 * `{ error: { code, message } }`. Serve it with `@hono/node-server`, or call `app.request()` in tests.
 *
 * @throws {TypeError} when a token is missing, shorter than 16 characters, or both tokens are the same.
 * @example
 * ```ts
 * const app = createApp({ store, apiToken, adminToken });
 * const res = await app.request('/api/keys', { headers: { authorization: `Bearer ${apiToken}` } });
 * ```
 */
export function createApp(options: AppOptions): Hono<BunkerEnv> {
  const maxBatch = options.maxBatch ?? DEFAULTS.maxBatch;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
  if (!Number.isSafeInteger(maxBatch) || maxBatch < 1)
    throw new TypeError(`\`maxBatch\` must be a positive integer, got \`${maxBatch}\``);
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1024) {
    throw new TypeError(`\`maxBodyBytes\` must be an integer ≥ 1024, got \`${maxBodyBytes}\``);
  }
  const logger = options.logger ?? silentLogger;
  // One count of wrong tokens per client address, for the API and the dashboard sign-in alike.
  const throttle = createTokenThrottle();
  const deps = { store: options.store, apiToken: options.apiToken, adminToken: options.adminToken, throttle };

  const app = new Hono<BunkerEnv>();
  // No body is read before its request is authorised: each route puts `limitBody` after its token (or
  // session) check, so an unauthorised request is answered at once, its body never buffered.
  const limitBody = limitBodyTo(maxBodyBytes);
  app.route('/api/keys', createSignApi({ ...deps, limitBody, maxBatch }));
  app.route('/api/keys', createAdminApi({ ...deps, limitBody }));
  app.route('/api/nip46', createNip46Api({ ...deps, limitBody, nip46: options.nip46 }));
  app.route('/api', createCompatApi({ ...deps, limitBody }));
  app.route(
    '/admin',
    createDashboard({
      store: options.store,
      nip46: options.nip46,
      adminToken: options.adminToken,
      throttle,
      limitForm: limitBodyTo(DASHBOARD_FORM_BYTES),
    }),
  );

  app.notFound(async (c) => {
    await drainUnreadBody(c);
    return errorResponse(
      c,
      'not_found',
      `No route \`${c.req.method} ${new URL(c.req.url).pathname.slice(0, 200)}\``,
    );
  });
  app.onError(async (error, c) => {
    await drainUnreadBody(c);
    if (error instanceof BunkerError) {
      if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter));
      return errorResponse(c, error.code, error.message, error.status);
    }
    if (error instanceof HTTPException && error.status < 500) {
      // From Hono's own middleware, e.g. the CSRF check on dashboard forms (403).
      const code =
        error.status === 403 ? 'forbidden' : error.status === 413 ? 'payload_too_large' : 'invalid_request';
      return errorResponse(c, code, error.message || 'Bad request', error.status as ContentfulStatusCode);
    }
    if (clientGone(c)) {
      // The client closed the connection while its body was read: nobody gets this answer, and a client
      // that hangs up on purpose must not fill the log with "unexpected" errors.
      return errorResponse(c, 'invalid_request', 'The connection was closed before the request was read');
    }
    logger.error(`unexpected error on ${c.req.method} ${new URL(c.req.url).pathname}: ${error.message}`);
    return errorResponse(c, 'internal_error', 'Internal error');
  });
  return app;
}

/** The largest dashboard form (sign-in, unlock): a token or a passphrase and little else. */
const DASHBOARD_FORM_BYTES = 16 * 1024;

/**
 * Hono's `bodyLimit`, answering 413 `payload_too_large`: rejects a `Content-Length` over `maxBytes` before
 * reading, and stops reading a chunked body once it passes `maxBytes`.
 */
function limitBodyTo(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new BunkerError('payload_too_large', `The request body is larger than ${maxBytes} bytes`);
    },
  });
}

/** What an early answer reads and discards of a body nobody wants: 64 MiB within 3 s (see below). */
const DRAIN_LIMIT = { bytes: 64 * 1024 * 1024, ms: 3000 } as const;

/**
 * An error answered before the request's body was read (a wrong token, an unknown key, a body over the
 * limit): the rest of the body is read and thrown away first, up to {@link DRAIN_LIMIT}, so that a client
 * still sending gets the answer — fetch (undici) reports a connection closed under its upload as "fetch
 * failed" (EPIPE), and `HttpBunkerSigner` must see a 413 to halve its batch. The HTTP layer alone drains
 * for 500 ms, which a 20 MB upload on a busy machine outlasts. Past the limit (an endless or a huge body)
 * the answer says `Connection: close`: without it a keep-alive client may already have sent its next
 * request on a connection that is then dropped.
 */
async function drainUnreadBody(c: {
  env: unknown;
  req: { method: string };
  header(name: string, value: string): void;
}): Promise<void> {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return;
  const incoming = (c.env as { incoming?: import('node:http').IncomingMessage })?.incoming;
  if (incoming === undefined || incoming.readableEnded || incoming.destroyed) return;
  const ended = await new Promise<boolean>((resolve) => {
    let bytes = 0;
    const finish = (done: boolean) => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.pause();
      resolve(done);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > DRAIN_LIMIT.bytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onError = () => finish(false);
    const timer = setTimeout(() => finish(false), DRAIN_LIMIT.ms);
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onError);
    incoming.resume();
  });
  if (!ended) c.header('Connection', 'close');
}

/** Whether the request's connection was torn down before its body ended (the client hung up). */
function clientGone(c: { env: unknown; req: { raw: Request } }): boolean {
  const incoming = (
    c.env as { incoming?: { errored?: unknown; destroyed?: boolean; readableEnded?: boolean } }
  )?.incoming;
  if (c.req.raw.signal?.aborted) return true;
  return (
    incoming !== undefined &&
    (incoming.errored != null || (incoming.destroyed === true && !incoming.readableEnded))
  );
}

function errorResponse(
  c: { json: (body: unknown, status: ContentfulStatusCode) => Response; req: { path: string } },
  code: BunkerErrorCode,
  message: string,
  status?: ContentfulStatusCode,
): Response {
  const error = new BunkerError(code, message);
  // The compatibility route answers in its own shape: `{ success: false, … }`.
  const body =
    c.req.path === '/api/sign' ? { success: false, error: { code, message } } : { error: { code, message } };
  return c.json(body, status ?? error.status);
}
