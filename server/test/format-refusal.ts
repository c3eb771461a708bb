// The readers throw the domain's `FormatError` (and `analyzeFile` an `EmptyFileError` for no bytes); the
// server answers them through its one mapper (`answerFor`). Tests that call a reader directly check the
// answer the server would give.
import { FormatError as BuiltFormatError } from '@siegel/formats';
import { FormatError } from '../../packages/formats/src/format-error.js';
import { ApiError } from '../src/http/api-error.js';
import { answerFor } from '../src/http/error-answers.js';

/**
 * `error` as the server answers it: a domain error mapped to its `ApiError`, anything else unchanged. A test
 * that calls the formats package's source throws its source `FormatError`; the server maps the built one.
 */
export function asApiError(error: unknown): unknown {
  const domain =
    error instanceof FormatError
      ? new BuiltFormatError(error.kind, error.format, error.message, error.limit)
      : error;
  return answerFor(domain) ?? error;
}

/** The answer the server would give to what `run` throws; the test fails when `run` throws nothing to answer. */
export function answerTo(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    const answer = asApiError(error);
    if (answer instanceof ApiError) return answer;
    throw error;
  }
  throw new Error('Expected a refusal, but nothing was thrown');
}
