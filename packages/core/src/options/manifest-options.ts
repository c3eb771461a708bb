// The options of the site manifest a signing run signs (docs/site-manifest.md): which NIP-5A site it is —
// a named site with `d` = `siteId` (derived from the site URL by default) or the key's root site — and its
// optional `title`, `description` and Blossom `server` tags. Part of the one strict options schema
// (options.ts spreads {@link manifestOptionsShape} into it).
import { z } from 'zod';
import { SiegelError } from '../errors.js';
import { deriveSiteId, isSiteId, NSITE_NAMED_KIND, NSITE_ROOT_KIND } from '../manifest/site-manifest.js';
import { parseBlossomServers, readBlossomServersFromEnv } from '../net/blossom.js';

/** What a site id must be, in every message that refuses one. */
export const SITE_ID_RULE = '1–13 of a–z, 0–9 and `-`, not ending in `-` (NIP-5A)';
const must = (what: string) => ({
  error: (issue: { input?: unknown }) => `must be ${what}, got \`${String(issue.input)}\``,
});
/** Blossom's one URL rule (net/blossom.ts, also `siegel publish --blossom`'s): https, or http on loopback. */
const BLOSSOM_URL = 'an https:// URL (http:// only on a loopback host), without query or fragment';
const isBlossomServer = (url: string) => {
  try {
    return parseBlossomServers([url]).length === 1;
  } catch {
    return false;
  }
};

/** The manifest's fields of the options schema (each optional). */
export const manifestOptionsShape = {
  /** The named site's `d` tag (default: derived from the site URL, `SIEGEL_SITE_ID`). */
  siteId: z.string(must(SITE_ID_RULE)).refine((id) => isSiteId(id), must(SITE_ID_RULE)),
  /** Sign the key's root site (kind 15128, no `d`) instead of a named site (default `false`). */
  rootSite: z.boolean(must('true or false')),
  /** The manifest's `title` tag (default: the home page's title). */
  siteTitle: z.string(must('a string')),
  /** The manifest's `description` tag (default: none). */
  siteDescription: z.string(must('a string')),
  /** Blossom servers named in the manifest's `server` tags (default: `SIEGEL_BLOSSOM`, comma-separated, else none). */
  blossom: z.array(
    z.string(must(BLOSSOM_URL)).refine(isBlossomServer, must(BLOSSOM_URL)),
    must(`an array of URLs, each ${BLOSSOM_URL}`),
  ),
};

/** The manifest options with defaults applied. */
export interface ManifestOptions {
  kind: typeof NSITE_ROOT_KIND | typeof NSITE_NAMED_KIND;
  /** The site id; `undefined` for a root site. */
  d: string | undefined;
  /** `undefined`: the home page's title. */
  title: string | undefined;
  description: string | undefined;
  servers: string[];
}

/**
 * The manifest's options, from the options or the environment (`SIEGEL_SITE_ID`, `SIEGEL_BLOSSOM`), for
 * the site at `siteBase`.
 *
 * @example
 * ```ts
 * resolveManifestOptions({}, {}, 'https://blog.example.com').d; // 'blog-' + 4 digits
 * ```
 * @throws {SiegelError} `invalid_options` for a `SIEGEL_SITE_ID` that is not one, or a Blossom server
 *   `parseBlossomServers` refuses (the one rule `siegel publish --blossom` follows too).
 */
export function resolveManifestOptions(
  options: {
    siteId?: string | undefined;
    rootSite?: boolean | undefined;
    siteTitle?: string | undefined;
    siteDescription?: string | undefined;
    blossom?: string[] | undefined;
  },
  env: Record<string, string | undefined>,
  siteBase: string,
): ManifestOptions {
  const fromEnv = env.SIEGEL_SITE_ID?.trim() || undefined;
  if (options.siteId === undefined && fromEnv !== undefined && !isSiteId(fromEnv))
    throw new SiegelError(
      'invalid_options',
      `\`SIEGEL_SITE_ID\` must be ${SITE_ID_RULE}, got \`${fromEnv}\``,
    );
  const servers =
    options.blossom !== undefined
      ? parseBlossomServers(options.blossom)
      : readBlossomServersFromEnv(env.SIEGEL_BLOSSOM);
  const root = options.rootSite === true;
  return {
    kind: root ? NSITE_ROOT_KIND : NSITE_NAMED_KIND,
    d: root ? undefined : (options.siteId ?? fromEnv ?? deriveSiteId(`${siteBase}/`)),
    title: options.siteTitle?.trim() || undefined,
    description: options.siteDescription?.trim() || undefined,
    servers,
  };
}
