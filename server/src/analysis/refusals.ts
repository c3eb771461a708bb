// A file's refusal as it crosses from an analysis worker to the main thread: the domain error's own fields
// (a structured clone keeps no class), and the same error built again on the other side.
import { FormatError, type FormatErrorKind } from '@siegel/formats';
import { EmptyFileError } from '../metadata/analyze-file.js';

/** The fields of a refusal `analyzeFile` throws: a `FormatError` or an `EmptyFileError`. */
export type AnalysisRefusal =
  | { error: 'format'; kind: FormatErrorKind; format: string; message: string; limit: string | undefined }
  | { error: 'empty'; fileName: string };

/**
 * The fields of `error` when it is one of `analyzeFile`'s refusals, else `undefined` (an unexpected error).
 *
 * @example
 * ```ts
 * refusalOf(new EmptyFileError('a.png')); // { error: 'empty', fileName: 'a.png' }
 * ```
 */
export function refusalOf(error: unknown): AnalysisRefusal | undefined {
  if (error instanceof FormatError) {
    const { kind, format, message, limit } = error;
    return { error: 'format', kind, format, message, limit };
  }
  if (error instanceof EmptyFileError) return { error: 'empty', fileName: error.fileName };
  return undefined;
}

/**
 * The domain error `refusal` was made from, built again.
 *
 * @example
 * ```ts
 * throw errorOf(reply.refusal); // a FormatError or an EmptyFileError
 * ```
 */
export function errorOf(refusal: AnalysisRefusal): FormatError | EmptyFileError {
  return refusal.error === 'empty'
    ? new EmptyFileError(refusal.fileName)
    : new FormatError(refusal.kind, refusal.format, refusal.message, refusal.limit);
}
