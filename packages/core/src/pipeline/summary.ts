import { describeSelector } from '../page/selector.js';
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
    .map((page) => `  ${page.outcome.padEnd(7)}  ${page.path}: ${page.error}`);
  if (!options.verbose) return [`${head}${refused}`, ...problems].join('\n');
  const width = Math.max(0, ...summary.pages.map((page) => page.outcome.length));
  const lines = summary.pages.map((page) => {
    const detail = page.error ?? page.eventId ?? '';
    return `  ${page.outcome.padEnd(width)}  ${page.path}${detail ? `  ${detail}` : ''}`;
  });
  return [`${head}${refused}`, ...lines].join('\n');
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
