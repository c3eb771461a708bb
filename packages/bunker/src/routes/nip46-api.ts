import { Hono } from 'hono';
import { BunkerError } from '../errors.js';
import { assertKeyName } from '../key-name.js';
import { type Nip46Permissions, parseKinds } from '../nip46/permissions.js';
import type { RemoteSigner } from '../nip46/remote-signer.js';
import { readJsonObject } from '../read-json.js';
import { type ApiRouteDeps, type BunkerEnv, tokenAuth } from '../token-auth.js';

/**
 * The NIP-46 connections, with the admin token:
 * `GET /api/nip46/connections` → `{ relays, defaults, connections: [client…] }`;
 * `POST /api/nip46/uri` `{ key, kinds?, nip44?, nip04? }` → 201 `{ uri }` (a new one-time `bunker://` URI);
 * `DELETE /api/nip46/connections/{key}/{pubkey}` → `{ revoked: { key, pubkey } }`.
 * Without relays (NIP-46 off) each answers 404 `not_found`.
 */
export function createNip46Api(deps: ApiRouteDeps & { nip46: RemoteSigner | undefined }): Hono<BunkerEnv> {
  const app = new Hono<BunkerEnv>();
  const admin = tokenAuth(deps, ['admin']);
  const signer = (): RemoteSigner => {
    if (!deps.nip46) {
      throw new BunkerError(
        'not_found',
        'NIP-46 is off: start the bunker with `--relay wss://…` (or `BUNKER_RELAYS`)',
      );
    }
    return deps.nip46;
  };

  app.get('/connections', admin, (c) => {
    const nip46 = signer();
    return c.json({ relays: nip46.relays, defaults: nip46.defaults, connections: nip46.connections.list() });
  });

  app.post('/uri', admin, deps.limitBody, async (c) => {
    const nip46 = signer();
    const body = await readJsonObject(c);
    const key = assertKeyName(body.key);
    const uri = await nip46.connectionUri(key, readPermissions(body, nip46.defaults));
    return c.json({ uri }, 201);
  });

  app.delete('/connections/:key/:pubkey', admin, async (c) => {
    const nip46 = signer();
    const key = assertKeyName(c.req.param('key'));
    const pubkey = c.req.param('pubkey');
    await nip46.connections.revoke(key, pubkey);
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
