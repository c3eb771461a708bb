import type { PublishReport } from '../nostr/publish-session.js';
import { describeSelector } from '../page/selector.js';
import { describeCoverage, type ProblemCode } from '../verify/rules.js';
/**
 * What happened to one page. `would-sign` only in a dry run. `refused`: not signed, because a signature would
 * not mean that readers see what was signed (several elements match, the element is hidden, or it holds
 * markup the parser ignores).
 */
export type PageOutcome = 'signed' | 'unchanged' | 'skipped' | 'refused' | 'failed' | 'would-sign';

/** One page's line in a {@link SignSummary}. */
export interface PageReport {
  /** Path relative to the output directory, with `/` separators. */
  path: string;
  outcome: PageOutcome;
  /** Event id of the page's signature (signed and unchanged pages). */
  eventId?: string;
  /** Why the page failed or was skipped. */
  error?: string;
  /** A refused page's problem code, the one every verifier gives it (`page.not_shown`, docs/verification.md). */
  code?: ProblemCode;
}

/** The result of signing a site. In a dry run, `signed` counts the pages that would be signed. */
export interface SignSummary {
  /** Pages signed in this run (their `<main>` changed or was never signed). */
  signed: number;
  /** Pages whose block came from the cache, with no bunker call. */
  unchanged: number;
  /** Pages without a matching element (no `<main>`): not signed. */
  skipped: number;
  /** Pages not signed because a signature would not cover what readers see (see `pages` for why). */
  refused: number;
  /** Pages that could not be read, parsed, signed (their event refused by the signer) or written. */
  failed: number;
  /** Every page, sorted by path. */
  pages: PageReport[];
  /** True for a dry run: nothing was signed or written. */
  dryRun?: boolean;
  /**
   * How the blocks of this run's written pages were checked to verify before writing: `proven` by the parse
   * (the place is a head-phase boundary, page/block-slot.ts), or `readBack` (read as a verifier reads it).
   */
  blockChecks?: { proven: number; readBack: number };
  /**
   * What went to the relays (when relays are configured, not in a dry run): per relay how many events it
   * took, and how many wait in the outbox for a later run or `siegel publish`.
   */
  published?: PublishReport;
  /** The site manifest (not in a dry run): whether it was signed again, its layout, size and cost. */
  manifest?: ManifestSummary;
}

/** What became of the site manifest in one run (pipeline/sign-manifest.ts; `bench/sign-site` prints it). */
export interface ManifestSummary {
  /** A new manifest event was signed (false: the one in `verify/manifest.json` still lists the site). */
  signed: boolean;
  layout: 'inline' | 'blob';
  /** Files listed. */
  files: number;
  /** Bytes of the event's JSON, and of the blob (0 in layout inline). */
  eventBytes: number;
  blobBytes: number;
  /** Per-event files and verify pages removed because no page names them any more. */
  removed: number;
  /** Milliseconds from the stale files' removal to the manifest written. */
  ms: number;
  /** The id of the newest manifest event. */
  eventId: string;
}

/**
 * The summary's line for the site manifest.
 *
 * @example
 * ```ts
 * formatManifestLine(summary.manifest); // 'Site manifest: signed, 12 files listed (inline, 3.1 KiB)'
 * ```
 */
export function formatManifestLine(manifest: ManifestSummary): string {
  const size =
    manifest.blobBytes > 0 ? `blob of ${manifest.blobBytes} bytes` : `${manifest.eventBytes} bytes`;
  const removed = manifest.removed > 0 ? `; ${manifest.removed} stale verify files removed` : '';
  return `Site manifest: ${manifest.signed ? 'signed' : 'unchanged'}, ${manifest.files} files listed (${manifest.layout}, ${size})${removed}`;
}

/** Options of {@link formatSummary}. */
export interface FormatSummaryOptions {
  /** List every page with its outcome (default `false`). */
  verbose?: boolean;
  /** The selector, named in the skipped count (default `main`). */
  selector?: string;
}

/**
 * One line for people, then one line per failed or refused page with the reason (one line per page when
 * `verbose`).
 *
 * @example
 * ```ts
 * formatSummary(summary) // 'Siegel: 3 signed, 120 unchanged, 1 skipped (no <main>), 0 failed'
 * ```
 */
export function formatSummary(summary: SignSummary, options: FormatSummaryOptions = {}): string {
  const selector = options.selector ?? 'main';
  const element = describeSelector(selector);
  const head = summary.dryRun
    ? `Siegel (dry run, nothing written): ${summary.signed} would be signed, ${summary.unchanged} unchanged, ${summary.skipped} skipped (no ${element}), ${summary.failed} failed`
    : `Siegel: ${summary.signed} signed, ${summary.unchanged} unchanged, ${summary.skipped} skipped (no ${element}), ${summary.failed} failed`;
  const refused = summary.refused > 0 ? `, ${summary.refused} refused` : '';
  // Pages that were not signed for a reason the user must act on are always listed, with the reason.
  const problems = summary.pages
    .filter((page) => page.outcome === 'refused' || page.outcome === 'failed')
    .map(
      (page) =>
        `  ${page.outcome.padEnd(7)}  ${page.path}: ${page.error}${page.code ? ` [${page.code}]` : ''}`,
    );
  if (!options.verbose) return [`${head}${refused}`, ...problems].join('\n');
  const width = Math.max(0, ...summary.pages.map((page) => page.outcome.length));
  const lines = summary.pages.map((page) => {
    const detail = page.error ? `${page.error}${page.code ? ` [${page.code}]` : ''}` : (page.eventId ?? '');
    return `  ${page.outcome.padEnd(width)}  ${page.path}${detail ? `  ${detail}` : ''}`;
  });
  // What a signature covers, once, for whoever reads the whole list.
  const covers = summary.signed + summary.unchanged > 0 ? [describeCoverage(selector)] : [];
  return [`${head}${refused}`, ...lines, ...covers].join('\n');
}

/** Options of {@link describeNothingSigned}. */
export interface NothingSignedOptions {
  /** The output directory as the user named it, quoted in the message. */
  dir: string;
  /** The selector, named when no page has the element (default `main`). */
  selector?: string;
  /** The host named the pages (`files`): none found means it wrote none, not a wrong directory. */
  named?: boolean;
}

/**
 * What to say about a run that leaves no page signed — it found no HTML page at all, or found pages but
 * signed none (none has the element, or each was refused or failed) — so that such a build never passes:
 * `signSite` throws it as the error `nothing_signed` (docs/errors.md). `undefined` when at least one page
 * carries a signature (signed now or from the cache): a run whose pages are all unchanged signed nothing
 * new, and is fine. When pages lack the element, the message names `--selector`; when no page was found,
 * it names the directory twice, as the place to look.
 *
 * @example
 * ```ts
 * describeNothingSigned(summary, { dir: 'dist' })
 * // 'Siegel: 5 HTML pages found in `dist`, none signed: none has a <main>. …`--selector`…'
 * ```
 */
export function describeNothingSigned(
  summary: SignSummary,
  options: NothingSignedOptions,
): string | undefined {
  const found = summary.pages.length;
  const where = `in \`${options.dir}\``;
  if (found === 0)
    return `Siegel: no HTML page found ${where}, nothing signed${options.named ? '' : `. Is \`${options.dir}\` the directory the site is built into?`}`;
  if (summary.signed + summary.unchanged > 0) return undefined;
  const element = describeSelector(options.selector ?? 'main');
  const none = summary.dryRun ? 'none would be signed' : 'none signed';
  const pages = found === 1 ? '1 HTML page' : `${found} HTML pages`;
  const reason =
    summary.skipped === found
      ? found === 1
        ? `it has no ${element}`
        : `none has ${/^<[aeiou]/i.test(element) ? 'an' : 'a'} ${element}`
      : [
          summary.skipped > 0 ? `${summary.skipped} without ${element}` : '',
          summary.refused > 0 ? `${summary.refused} refused` : '',
          summary.failed > 0 ? `${summary.failed} failed` : '',
        ]
          .filter(Boolean)
          .join(', ');
  // Pages without the element: most often the content is in another one, which `--selector` names.
  const hint =
    summary.skipped > 0
      ? `. If the content is in another element, name it with \`--selector\` (\`selector\` in a build integration's options)`
      : '';
  return `Siegel: ${pages} found ${where}, ${none}: ${reason}${hint}`;
}

/** The summary of a run from its page reports (sorted by path). */
export function summarize(reports: PageReport[], dryRun: boolean): SignSummary {
  const pages = [...reports].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const count = (outcome: PageOutcome) => pages.filter((page) => page.outcome === outcome).length;
  return {
    signed: count('signed') + count('would-sign'),
    unchanged: count('unchanged'),
    skipped: count('skipped'),
    refused: count('refused'),
    failed: count('failed'),
    pages,
    ...(dryRun ? { dryRun: true } : {}),
  };
}
