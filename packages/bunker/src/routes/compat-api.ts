import { Hono } from 'hono';
import { BunkerError } from '../errors.js';
import { parseEventTemplate } from '../event-template.js';
import { assertKeyName } from '../key-name.js';
import type { KeyStore } from '../key-store.js';
import { readJsonObject } from '../read-json.js';
import { type ApiRouteDeps, type BunkerEnv, tokenAuth } from '../token-auth.js';

/** The key `POST /api/sign` uses when the body names none. */
export const DEFAULT_KEY_NAME = 'default';

/**
 * The routes of the seed's existing bunker deployments, so their clients keep working:
 * `POST /api/sign` `{ keyName, event }` → `{ success, event }` (API token) and
 * `GET /api/status` → `{ keys: { active, locked } }` (either token). Errors also carry `success: false`.
 */
export function createCompatApi(deps: ApiRouteDeps & { store: KeyStore }): Hono<BunkerEnv> {
  const app = new Hono<BunkerEnv>();

  app.post('/sign', tokenAuth(deps, ['api']), deps.limitBody, async (c) => {
    const body = await readJsonObject(c);
    const keyName = body.keyName ?? DEFAULT_KEY_NAME;
    if (typeof keyName !== 'string') throw new BunkerError('invalid_request', '`keyName` must be a string');
    const name = assertKeyName(keyName);
    deps.store.get(name);
    const template = parseEventTemplate(body.event, 'event');
    const [event] = await deps.store.sign(name, [template]);
    return c.json({ success: true, event });
  });

  app.get('/status', tokenAuth(deps, ['api', 'admin']), (c) => c.json({ keys: deps.store.status() }));

  return app;
}
