// The readers moved to @siegel/formats throw `FormatError`; the server answers it as `ApiError` at its edge
// (`formatRefusal`). Tests that call a reader directly check the answer the server would give.
import { FormatError } from '../../packages/formats/src/format-error.js';
import { formatRefusal } from '../src/metadata/analyze-file.js';

/** `error` as the server answers it: a `FormatError` mapped to its `ApiError`, anything else unchanged. */
export function asApiError(error: unknown): unknown {
  return error instanceof FormatError ? formatRefusal(error) : error;
}
