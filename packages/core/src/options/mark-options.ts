// The `mark` option of a signing run (docs/mark.md): whether each signed page carries the reader's mark —
// the `<siegel-mark>` element's script, `verify/siegel-mark.js`, named in the page's signature block — and
// where its links go besides the page's own verify page: a file server's verify-by-URL (`server`) and a
// place that describes the browser extension (`extension`). Part of the one strict options schema
// (options.ts spreads {@link markOptionsShape} into it).
import { z } from 'zod';
import { must } from './must.js';

/** The mark's script, a file of the output's `verify/` folder (pinned by the site manifest like any file). */
export const MARK_SCRIPT_NAME = 'siegel-mark.js';

const URL_RULE = 'an absolute http(s) URL without query or fragment';
const OPTION_RULE = 'true, false or { server?: URL, extension?: URL }';
/** An absolute http(s) URL with no query or fragment (a link the mark builds on). */
function isLinkBase(value: string): boolean {
  try {
    const url = new URL(value.trim());
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
  } catch {
    return false;
  }
}

const linkBase = () => z.string(must(URL_RULE)).refine(isLinkBase, must(URL_RULE));

/** The mark's field of the options schema (optional). */
export const markOptionsShape = {
  /**
   * Put the reader's mark on every signed page (default `false`): `true`, or `{ server, extension }` —
   * `server` the base URL of a file server whose `/verify?url=` the mark links to (default: no such link),
   * `extension` where the mark sends readers for the browser extension (default: its README in Siegel's
   * repository). The run writes `verify/siegel-mark.js` and names it in each page's signature block.
   */
  mark: z.union(
    [
      z.boolean(must(OPTION_RULE)),
      z.strictObject({ server: linkBase().optional(), extension: linkBase().optional() }, must(OPTION_RULE)),
    ],
    must(OPTION_RULE),
  ),
};

/** The mark with its options applied: what the block's script tag says. */
export interface MarkOptions {
  /** The script's site-relative address, under the site's base path: `/verify/siegel-mark.js` (or `/docs/verify/…`). */
  src: string;
  /** A file server's base URL (no trailing `/`), or `undefined` for no verify-by-URL link. */
  server: string | undefined;
  /** Where the extension is described, or `undefined` for the script's default (its README). */
  extension: string | undefined;
}

/**
 * The mark for a run of the site at `siteBase` (origin and path, no trailing `/`), or `undefined` when it is
 * off. The option is checked by the schema before this runs.
 *
 * @example
 * ```ts
 * resolveMarkOptions({ server: 'https://files.example/' }, 'https://example.com/docs');
 * // { src: '/docs/verify/siegel-mark.js', server: 'https://files.example', extension: undefined }
 * ```
 */
export function resolveMarkOptions(
  mark: boolean | { server?: string | undefined; extension?: string | undefined } | undefined,
  siteBase: string,
): MarkOptions | undefined {
  if (mark === undefined || mark === false) return undefined;
  const given = mark === true ? {} : mark;
  return {
    src: `${new URL(siteBase).pathname.replace(/\/+$/, '')}/verify/${MARK_SCRIPT_NAME}`,
    server: given.server?.trim().replace(/\/+$/, '') || undefined,
    extension: given.extension?.trim() || undefined,
  };
}
