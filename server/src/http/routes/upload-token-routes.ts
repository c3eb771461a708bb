import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { mintUploadToken } from '../../signing/upload-tokens.js';
import type { UploadTokenStore } from '../../storage/upload-token-store.js';
import { ApiError } from '../api-error.js';
import { signAuth } from '../middleware/sign-auth.js';

/** What {@link createUploadTokenRoutes} needs. */
export interface UploadTokenRoutesDeps {
  /** `SIGN_API_TOKENS`: only these mint (an upload token never mints another). */
  signTokens: readonly string[];
  store: UploadTokenStore;
  /** `SIGN_CORS_ORIGINS`: a token is minted only for one of these. */
  corsOrigins: readonly string[];
}

/** The largest mint request body: the three fields fit in far less. */
const MAX_BODY_BYTES = 4096;

/**
 * `POST /upload-tokens` (mounted under `/api`): a tool's backend, with its sign token, mints a short-lived
 * upload token for one origin; the browser page signs with it. Answers 201 `{ success, token, origin,
 * expires_at, uses }`, never cached.
 */
export function createUploadTokenRoutes(deps: UploadTokenRoutesDeps): Hono {
  const routes = new Hono();
  routes.post(
    '/upload-tokens',
    signAuth(deps.signTokens),
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new ApiError(400, 'INVALID_TOKEN_REQUEST', `The body must be at most ${MAX_BODY_BYTES} bytes`);
      },
    }),
    async (c) => {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        throw new ApiError(
          400,
          'INVALID_TOKEN_REQUEST',
          'The body must be JSON: `{ "origin": "https://app.example", "uses": 1, "ttl_seconds": 300 }`',
        );
      }
      const minted = await mintUploadToken(deps.store, body, deps.corsOrigins);
      c.header('Cache-Control', 'no-store');
      return c.json({ success: true, ...minted }, 201);
    },
  );
  return routes;
}
