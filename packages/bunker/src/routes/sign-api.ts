import { Hono, type MiddlewareHandler } from 'hono';
import type { EventTemplate } from 'nostr-tools/core';
import { BunkerError } from '../errors.js';
import { parseEventTemplate } from '../event-template.js';
import { assertKeyName } from '../key-name.js';
import type { KeyStore } from '../key-store.js';
import { readJsonObject } from '../read-json.js';
import { type ApiRouteDeps, type BunkerEnv, tokenAuth } from '../token-auth.js';

/** What the API routes need. */
export interface SignApiDeps extends ApiRouteDeps {
  store: KeyStore;
  /** Most templates in one batch. */
  maxBatch: number;
}

/**
 * `GET /api/keys` (either token) and `POST /api/keys/{name}/sign` (API token): the v1 API.
 */
export function createSignApi(deps: SignApiDeps): Hono<BunkerEnv> {
  const app = new Hono<BunkerEnv>();

  app.get('/', tokenAuth(deps, ['api', 'admin']), (c) => c.json(deps.store.list()));

  const knownKey: MiddlewareHandler<BunkerEnv> = async (c, next) => {
    deps.store.get(assertKeyName(c.req.param('name') ?? '')); // 404 before reading a large body for nothing
    await next();
  };

  app.post('/:name/sign', tokenAuth(deps, ['api']), knownKey, deps.limitBody, async (c) => {
    const name = assertKeyName(c.req.param('name'));
    const body = await readJsonObject(c);
    const events = body.events;
    if (!Array.isArray(events)) {
      throw new BunkerError(
        'invalid_request',
        'The body must be `{ "events": [template, …] }`: `events` is missing or not an array',
      );
    }
    if (events.length > deps.maxBatch) {
      throw new BunkerError(
        'batch_too_large',
        `A batch holds at most ${deps.maxBatch} events, got ${events.length}: split it into several requests`,
      );
    }
    const templates: EventTemplate[] = events.map((e, i) => parseEventTemplate(e, `events[${i}]`));
    return c.json({ events: await deps.store.sign(name, templates) });
  });

  return app;
}
