// The bounds of reading uploads: the formats package's table (`FORMAT_LIMITS`), and the two the server adds
// around a whole analysis (its time and its worker's memory), answered like the others.
import { FORMAT_LIMITS, type FormatLimit } from '@siegel/formats';
import { type ApiError, invalidFormat } from '../api-error.js';

/** Every bound the metadata readers keep, by name (`FORMAT_LIMITS` of @siegel/formats). */
export const ANALYSIS_LIMITS = FORMAT_LIMITS;

/** The name of one of {@link ANALYSIS_LIMITS}, or of the server's own bounds on an analysis. */
export type AnalysisLimit = FormatLimit | 'analysis_time' | 'analysis_memory';

/**
 * `INVALID_FORMAT` (422) for a file past `limit`: `limit` names it in the answer.
 *
 * @example
 * ```ts
 * throw pastLimit('analysis_time', 'Reading this file took longer than 5 s');
 * ```
 */
export function pastLimit(limit: AnalysisLimit, message: string): ApiError {
  const error = invalidFormat(message);
  error.extra.limit = limit;
  return error;
}
