import { Hono } from 'hono';
import { BunkerError } from '../errors.js';
import { assertPassphrase } from '../key-material.js';
import { assertKeyName } from '../key-name.js';
import type { KeyStore } from '../key-store.js';
import { readJsonObject } from '../read-json.js';
import { type ApiRouteDeps, type BunkerEnv, tokenAuth } from '../token-auth.js';

/**
 * Key management with the admin token:
 * `POST /api/keys` `{ name, passphrase, generate?: true, import?: "nsec1…" | "ncryptsec1…" }` → 201 key;
 * `POST /api/keys/{name}/unlock` `{ passphrase }` → key; `POST /api/keys/{name}/lock` → key;
 * `DELETE /api/keys/{name}` → `{ deleted: name }`.
 */
export function createAdminApi(deps: ApiRouteDeps & { store: KeyStore }): Hono<BunkerEnv> {
  const app = new Hono<BunkerEnv>();
  const admin = tokenAuth(deps, ['admin']);

  app.post('/', admin, deps.limitBody, async (c) => {
    const body = await readJsonObject(c);
    const name = assertKeyName(body.name);
    // An imported `ncryptsec` opens with the passphrase it was made with, whatever its length; any other
    // key is encrypted with this one, which must be long enough.
    if (typeof body.import === 'string' && body.import.trim().startsWith('ncryptsec1')) {
      if (typeof body.passphrase !== 'string')
        throw new BunkerError('invalid_request', '`passphrase` must be a string');
    } else {
      assertPassphrase(body.passphrase);
    }
    if (body.import !== undefined && typeof body.import !== 'string') {
      throw new BunkerError('invalid_request', '`import` must be a string: an `nsec1…` or `ncryptsec1…`');
    }
    if (body.import !== undefined && body.generate === true) {
      throw new BunkerError('invalid_request', 'Give either `generate: true` or `import`, not both');
    }
    if (body.import === undefined && body.generate !== true) {
      throw new BunkerError(
        'invalid_request',
        'Give `generate: true` to make a new key, or `import` with a key',
      );
    }
    const key = await deps.store.create(name, { passphrase: body.passphrase, import: body.import });
    return c.json(key, 201);
  });

  app.post('/:name/unlock', admin, deps.limitBody, async (c) => {
    const name = assertKeyName(c.req.param('name'));
    deps.store.get(name);
    const body = await readJsonObject(c);
    if (typeof body.passphrase !== 'string')
      throw new BunkerError('invalid_request', '`passphrase` must be a string');
    return c.json(deps.store.unlock(name, body.passphrase));
  });

  app.post('/:name/lock', admin, (c) => c.json(deps.store.lock(assertKeyName(c.req.param('name')))));

  app.delete('/:name', admin, async (c) => {
    const name = assertKeyName(c.req.param('name'));
    await deps.store.delete(name);
    return c.json({ deleted: name });
  });

  return app;
}
