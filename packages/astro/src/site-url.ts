/**
 * The public URL of the build output's root: Astro serves pages under `base`, which `site` may or may not
 * already end with. `withBase('https://x.dev', '/docs/')` → `https://x.dev/docs`.
 */
export function withBase(site: string, base: string | undefined): string {
  const path = (base ?? '/').replace(/^\/+|\/+$/g, '');
  const trimmed = site.replace(/\/+$/, '');
  if (!path || !trimmed || trimmed.endsWith(`/${path}`)) return trimmed;
  return `${trimmed}/${path}`;
}
