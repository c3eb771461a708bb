import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api-error.js';
import { answerFor, SIGNING_ANSWERS, UPLOAD_TOKEN_ANSWERS } from '../src/http/error-answers.js';
import { SigningError, type SigningErrorKind } from '../src/signing/signing-error.js';
import { UploadTokenError, type UploadTokenErrorKind } from '../src/signing/upload-tokens.js';

// The one mapper from domain errors to answers (http/error-answers.ts): every kind answers, with its details.
describe('answerFor', () => {
  it('answers every kind of upload token refusal with its status, code, message and details', () => {
    const kinds = Object.keys(UPLOAD_TOKEN_ANSWERS) as UploadTokenErrorKind[];
    expect(kinds.sort()).toEqual([
      'expired',
      'invalid_request',
      'origin_not_allowed',
      'unknown',
      'used_up',
      'wrong_origin',
    ]);
    for (const kind of kinds) {
      const answer = answerFor(new UploadTokenError(kind, `refused: ${kind}`, { uses: 2 }));
      expect(answer, kind).toBeInstanceOf(ApiError);
      expect(answer?.status).toBe(UPLOAD_TOKEN_ANSWERS[kind].status);
      expect(answer?.toJSON()).toEqual({
        success: false,
        error: UPLOAD_TOKEN_ANSWERS[kind].code,
        message: `refused: ${kind}`,
        uses: 2,
      });
    }
  });

  it('answers every kind of signing refusal with its status, code, message and details', () => {
    const kinds = Object.keys(SIGNING_ANSWERS) as SigningErrorKind[];
    expect(kinds.sort()).toEqual([
      'already_signed',
      'author_required',
      'bunker_mismatch',
      'bunker_unavailable',
      'event_refused',
    ]);
    for (const kind of kinds) {
      const answer = answerFor(new SigningError(kind, `not signed: ${kind}`, { hash: 'ab' }));
      expect(answer?.status, kind).toBe(SIGNING_ANSWERS[kind].status);
      expect(answer?.toJSON()).toEqual({
        success: false,
        error: SIGNING_ANSWERS[kind].code,
        message: `not signed: ${kind}`,
        hash: 'ab',
      });
    }
  });

  it('passes an ApiError through and leaves other errors to the caller (500)', () => {
    const api = new ApiError(404, 'NOT_FOUND', 'gone');
    expect(answerFor(api)).toBe(api);
    expect(answerFor(new Error('boom'))).toBeUndefined();
  });
});
