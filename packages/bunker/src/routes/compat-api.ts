import { Hono, type MiddlewareHandler } from 'hono';
import { BunkerError } from '../errors.js';
import { parseEventTemplate } from '../event-template.js';
import { assertKeyName } from '../key-name.js';
import type { KeyStore } from '../key-store.js';
import { readJsonObject } from '../read-json.js';
import type { Throttle } from '../throttle.js';
import { type BunkerEnv, tokenAuth } from '../token-auth.js';

/** The key `POST /api/sign` uses when the body names none. */
export const DEFAULT_KEY_NAME = 'default';

/**
 * The routes of the seed's existing bunker deployments, so their clients keep working:
 * `POST /api/sign` `{ keyName, event }` → `{ success, event }` (API token) and
 * `GET /api/status` → `{ keys: { active, locked } }` (either token). Errors also carry `success: false`.
 */
export function createCompatApi(deps: {
  store: KeyStore;
  apiToken: string;
  adminToken: string;
  /** Counts wrong tokens per client address. */
  throttle: Throttle;
  /** Limits the body; runs after the token check. */
  limitBody: MiddlewareHandler;
}): Hono<BunkerEnv> {
  const app = new Hono<BunkerEnv>();
  const tokens = { apiToken: deps.apiToken, adminToken: deps.adminToken, throttle: deps.throttle };

  app.post('/sign', tokenAuth(tokens, ['api']), deps.limitBody, async (c) => {
    const body = await readJsonObject(c);
    const keyName = body.keyName ?? DEFAULT_KEY_NAME;
    if (typeof keyName !== 'string') throw new BunkerError('invalid_request', '`keyName` must be a string');
    const name = assertKeyName(keyName);
    deps.store.get(name);
    const template = parseEventTemplate(body.event, 'event');
    const [event] = await deps.store.sign(name, [template]);
    return c.json({ success: true, event });
  });

  app.get('/status', tokenAuth(tokens, ['api', 'admin']), (c) => c.json({ keys: deps.store.status() }));

  return app;
}
