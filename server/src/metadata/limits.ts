// The bounds of reading uploads: the formats package's table (`FORMAT_LIMITS`), and the two the server adds
// around a whole analysis (its time and its worker's memory), refused like the others (a `FormatError`).
import { FORMAT_LIMITS, FormatError, type FormatLimit } from '@siegel/formats';

/** Every bound the metadata readers keep, by name (`FORMAT_LIMITS` of @siegel/formats). */
export const ANALYSIS_LIMITS = FORMAT_LIMITS;

/** The name of one of {@link ANALYSIS_LIMITS}, or of the server's own bounds on an analysis. */
export type AnalysisLimit = FormatLimit | 'analysis_time' | 'analysis_memory';

/**
 * The refusal of a file past `limit`: a `FormatError` of kind `limit` naming it (its format is not known
 * when the whole analysis was stopped), answered as the formats package's own limits are.
 *
 * @example
 * ```ts
 * throw pastLimit('analysis_time', 'Reading this file took longer than 5 s');
 * ```
 */
export function pastLimit(limit: AnalysisLimit, message: string): FormatError {
  return new FormatError('limit', 'unknown', message, limit);
}
