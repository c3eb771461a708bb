import { isSiegelError, type SiegelErrorCode } from '@siegel/core';
// `astro/errors` exports Astro's user error (`AstroUserError`) as `AstroError`, in Astro 5, 6 and 7 alike.
import { AstroError } from 'astro/errors';

/** What to do about each Siegel error a build meets: the hint Astro prints under the message. */
const HINTS: Partial<Record<SiegelErrorCode, string>> = {
  token_missing:
    'Put `BUNKER_API_TOKEN=…` into `.env` in the project root (never commit it) or into the environment. ' +
    'For a first try, a development bunker (`siegel-bunker start --dev`, from @siegel/bunker) prints one.',
  token_rejected:
    'Copy the API token the bunker was started with into `BUNKER_API_TOKEN` in `.env`, or point `BUNKER_URL` at the bunker that token belongs to.',
  key_not_found:
    'Set `BUNKER_KEY_NAME` to a key `siegel-bunker keys list` shows, or create it with `siegel-bunker keys add NAME --generate`.',
  key_locked: "Unlock the key on the bunker's /admin page, then build again.",
  bunker_unreachable:
    'Start the bunker (`siegel-bunker start`), or set `BUNKER_URL` in `.env` to where it runs.',
  nothing_signed:
    "Set `selector` in siegel({ … }) to the element that holds each page's content (default `main`), or give the layout a <main>.",
  invalid_options:
    "Fix the option named above in astro.config (`site: 'https://example.com'` in defineConfig, or siegel({ … })).",
};

/** Said under every hint: how to build anyway, and where every message is explained. */
const ALWAYS =
  "To build without signatures meanwhile: siegel({ onError: 'warn' }). Every message: https://github.com/siegel-dev/siegel/blob/main/docs/errors.md";

/**
 * A Siegel error as Astro's user error: the same message the `siegel` CLI prints, a hint, and no stack
 * trace (Astro prints a user error's stack only when it has one, and ours would only show Siegel's own
 * frames). Any other error is returned as it is: an unexpected one keeps its stack.
 *
 * @example
 * try { await sign(); } catch (error) { throw toAstroError(error); }
 */
export function toAstroError(error: unknown): unknown {
  if (!isSiegelError(error)) return error;
  const hint = HINTS[error.code];
  const astroError = new AstroError(error.message, hint ? `${hint}\n${ALWAYS}` : ALWAYS);
  astroError.stack = '';
  return astroError;
}
