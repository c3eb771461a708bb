/**
 * A command line the CLI cannot make sense of (unknown subcommand, missing argument, conflicting flags).
 * `siegel-bunker` exits 2 for it, like for an unknown option, instead of 1 for a failure at run time.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** True for a usage error: ours, or one of `node:util` `parseArgs` (unknown option, missing value). */
export function isUsageError(error: unknown): boolean {
  if (error instanceof UsageError) return true;
  return error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}
