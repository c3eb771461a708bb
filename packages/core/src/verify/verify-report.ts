// The report of `verifySite` for people (`siegel verify`) and for tools (`--json`); the checking itself is
// verify-site.ts and the rule book rules.ts.
import { describeCoverage, PROBLEM_CODES, type Problem, type ProblemCode, type Verdict } from './rules.js';

/** One page's result: the rule book's verdict and problems, and what was found against what was expected. */
export interface PageVerification {
  /** Path relative to the directory, or the URL. */
  page: string;
  /** `valid`, `invalid` or `not_found` (the event or the page could not be loaded: an outage). */
  verdict: Verdict;
  /** Errors, then warnings, each with a stable code (`docs/verification.md`); empty when clean. */
  problems: Problem[];
  /** What the page and its event say. */
  found: { hash?: string; eventId?: string; pubkey?: string; eventHash?: string };
  /** What the check expects: the hash recomputed from the page now, the expected signer if one was given. */
  expected: { hash?: string; pubkey?: string };
  /** The spec the page was checked by: the one its event was signed under (`siegel-page/1` for events without a `spec` tag). */
  spec?: string;
  /** Where the event was read: `verify/{id}.json`, its URL, or the relay it came from (`wss://…`). */
  eventFrom?: string;
  /** The address the page was compared as: the URL it was fetched at, or `site` joined with its path. */
  address?: string;
}

/**
 * The result of {@link verifySite}. `ok` is true when at least one page was judged and every judged page is
 * valid (warnings allowed). `unsigned` counts the invalid pages that carry no block at all; `skipped` the
 * pages with neither the element nor a block (not judged, not in `pages`).
 */
export interface VerifyReport {
  ok: boolean;
  valid: number;
  invalid: number;
  notFound: number;
  unsigned: number;
  skipped: number;
  pages: PageVerification[];
}

/**
 * Text for people: one line per page that is not valid (every page when `verbose`), each warning
 * code once with the number of pages it concerns, then the counts. Under a judged page, `signed hash` (the block's, with its event and pubkey)
 * stands above `page hash now` (recomputed from the page, with the expected signer when one was given);
 * each problem follows with its code.
 *
 * @example
 * ```ts
 * console.log(formatVerifyReport(await verifySite('dist')));
 * ```
 */
export function formatVerifyReport(
  report: VerifyReport,
  options: { verbose?: boolean; selector?: string } = {},
): string {
  const lines: string[] = [];
  for (const page of report.pages) {
    if (!options.verbose && page.verdict === 'valid') continue;
    const label = page.verdict === 'not_found' ? 'NOT FOUND' : page.verdict.toUpperCase();
    lines.push(`${label.padEnd(9)} ${page.page}${page.spec ? `  (${page.spec})` : ''}`);
    const read = Object.keys(page.found).length + Object.keys(page.expected).length > 0;
    if (read) {
      // The block's hash (what was signed) against the hash recomputed from the page now, aligned.
      lines.push(
        `  signed hash   ${page.found.hash ?? '-'}  event ${page.found.eventId ?? '-'}  pubkey ${page.found.pubkey ?? '-'}`,
      );
      lines.push(
        `  page hash now ${page.expected.hash ?? '-'}${page.expected.pubkey ? `  expected signer ${page.expected.pubkey}` : ''}`,
      );
    }
    if (options.verbose && page.eventFrom) lines.push(`  event from ${page.eventFrom}`);
    for (const problem of page.problems)
      lines.push(
        `  ${problem.severity === 'warning' ? 'warning' : '-'} ${problem.message} [${problem.code}]`,
      );
  }
  // Warnings leave pages valid: counted once per code (they tend to hold for the whole site), listed per page
  // in verbose output.
  const warned = new Map<ProblemCode, number>();
  for (const page of report.pages)
    for (const code of new Set(page.problems.filter((p) => p.severity === 'warning').map((p) => p.code)))
      warned.set(code, (warned.get(code) ?? 0) + 1);
  for (const [code, count] of warned)
    lines.push(`warning: ${count} page${count === 1 ? '' : 's'}: ${PROBLEM_CODES[code].meaning} [${code}]`);
  // What "valid" means, once, for whoever reads the whole list.
  if (options.verbose && report.valid > 0) lines.push(describeCoverage(options.selector));
  lines.push(
    `Siegel verify: ${report.valid} valid, ${report.invalid} invalid${report.unsigned > 0 ? ` (${report.unsigned} unsigned)` : ''}, ${report.notFound} not found, ${report.skipped} skipped (no element)`,
  );
  return lines.join('\n');
}

/**
 * The report as JSON for tools (`siegel verify --json`): the counts and, per judged page, its verdict and
 * problems with their codes.
 */
export function formatVerifyReportJson(report: VerifyReport): string {
  return JSON.stringify(report, null, 2);
}
