import { Hono } from 'hono';
import { BunkerError } from '../errors.js';
import { assertKeyName } from '../key-name.js';
import type { Nip46Service } from '../nip46/nip46-service.js';
import { type Nip46Permissions, parseKinds } from '../nip46/permissions.js';
import { readJsonObject } from '../read-json.js';
import { type ApiRouteDeps, type BunkerEnv, tokenAuth } from '../token-auth.js';

/**
 * The NIP-46 connections, with the admin token:
 * `GET /api/nip46/connections` → `{ relays, defaults, connections: [client…], pending: [uri…] }`;
 * `POST /api/nip46/uri` `{ key, kinds?, nip44?, nip04? }` → 201 `{ uri, expires_at }` (a new one-time
 * `bunker://` URI); `DELETE /api/nip46/connections/{key}/{pubkey}` → `{ revoked: { key, pubkey } }`;
 * `GET /api/nip46/stats` → the worker's counters (what strangers cost) and both thread ids.
 * Without relays (NIP-46 off) each answers 404 `not_found`.
 */
export function createNip46Api(deps: ApiRouteDeps & { nip46: Nip46Service | undefined }): Hono<BunkerEnv> {
  const app = new Hono<BunkerEnv>();
  const admin = tokenAuth(deps, ['admin']);
  const signer = (): Nip46Service => {
    if (!deps.nip46) {
      throw new BunkerError(
        'not_found',
        'NIP-46 is off: start the bunker with `--relay wss://…` (or `BUNKER_RELAYS`)',
      );
    }
    return deps.nip46;
  };

  app.get('/connections', admin, async (c) => {
    const nip46 = signer();
    const [connections, pending] = await Promise.all([nip46.connections(), nip46.pending()]);
    return c.json({ relays: nip46.relays, defaults: nip46.defaults, connections, pending });
  });

  app.get('/stats', admin, async (c) => c.json(await signer().stats()));

  app.post('/uri', admin, deps.limitBody, async (c) => {
    const nip46 = signer();
    const body = await readJsonObject(c);
    const key = assertKeyName(body.key);
    return c.json(await nip46.newUri(key, readPermissions(body, nip46.defaults)), 201);
  });

  app.delete('/connections/:key/:pubkey', admin, async (c) => {
    const nip46 = signer();
    const key = assertKeyName(c.req.param('key'));
    const pubkey = c.req.param('pubkey');
    await nip46.revoke(key, pubkey);
    return c.json({ revoked: { key, pubkey } });
  });

  return app;
}

/** The permissions of a new URI: the defaults, with `kinds` (array or comma list), `nip44`, `nip04` over them. */
function readPermissions(body: Record<string, unknown>, defaults: Nip46Permissions): Nip46Permissions {
  const { kinds, nip44, nip04 } = body;
  for (const [name, value] of [
    ['nip44', nip44],
    ['nip04', nip04],
  ] as const) {
    if (value !== undefined && typeof value !== 'boolean')
      throw new BunkerError('invalid_request', `\`${name}\` must be true or false`);
  }
  let list = defaults.kinds;
  if (Array.isArray(kinds)) list = parseKinds(kinds.map(String).join(','), '`kinds`');
  else if (typeof kinds === 'string') list = parseKinds(kinds, '`kinds`');
  else if (kinds !== undefined)
    throw new BunkerError('invalid_request', '`kinds` must be an array of event kinds, e.g. `[1063]`');
  return {
    kinds: [...list],
    nip44: (nip44 as boolean | undefined) ?? defaults.nip44,
    nip04: (nip04 as boolean | undefined) ?? defaults.nip04,
  };
}
