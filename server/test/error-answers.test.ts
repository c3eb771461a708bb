// The server's code imports `FormatError` from the built package: the test throws that same class.
import { FormatError, SUPPORTED_FORMATS } from '@siegel/formats';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/http/api-error.js';
import {
  answerFor,
  FORMAT_ANSWERS,
  SIGNING_ANSWERS,
  UPLOAD_TOKEN_ANSWERS,
} from '../src/http/error-answers.js';
import { EmptyFileError } from '../src/metadata/analyze-file.js';
import { pastLimit } from '../src/metadata/limits.js';
import { SigningError } from '../src/signing/signing-error.js';
import { UploadTokenError, type UploadTokenErrorKind } from '../src/signing/upload-tokens.js';

// The one mapper from domain errors to answers (http/error-answers.ts): every kind answers, with its details.
describe('answerFor', () => {
  // Each family of domain errors: its kinds (all of them, so a new kind must be named here), the error of
  // one kind, and the answer that kind gets.
  const families = [
    {
      family: 'upload token refusal',
      kinds: ['expired', 'invalid_request', 'origin_not_allowed', 'unknown', 'used_up', 'wrong_origin'],
      table: UPLOAD_TOKEN_ANSWERS,
      error: (kind: string) =>
        new UploadTokenError(kind as UploadTokenErrorKind, `refused: ${kind}`, { uses: 2 }),
      details: { uses: 2 },
    },
    {
      family: 'signing refusal',
      kinds: ['already_signed', 'author_required', 'bunker_mismatch', 'bunker_unavailable', 'event_refused'],
      table: SIGNING_ANSWERS,
      error: (kind: string) =>
        new SigningError(kind as keyof typeof SIGNING_ANSWERS, `refused: ${kind}`, { hash: 'ab' }),
      details: { hash: 'ab' },
    },
  ];
  for (const { family, kinds, table, error, details } of families) {
    it(`answers every kind of ${family} with its status, code, message and details`, () => {
      expect(Object.keys(table).sort()).toEqual(kinds);
      for (const [kind, { status, code }] of Object.entries(table)) {
        const answer = answerFor(error(kind));
        expect(answer, kind).toBeInstanceOf(ApiError);
        expect(answer?.status, kind).toBe(status);
        expect(answer?.toJSON()).toEqual({
          success: false,
          error: code,
          message: `refused: ${kind}`,
          ...details,
        });
      }
    });
  }

  it('answers every kind of FormatError as INVALID_FORMAT: 415 unsupported, 422 else, with the formats and limit', () => {
    expect(FORMAT_ANSWERS).toEqual({
      unsupported: 415,
      damaged: 422,
      encrypted: 422,
      too_complex: 422,
      limit: 422,
    });
    for (const [kind, status] of Object.entries(FORMAT_ANSWERS)) {
      const limit = kind === 'limit' ? 'pdf_objects' : undefined;
      const answer = answerFor(
        new FormatError(kind as keyof typeof FORMAT_ANSWERS, 'pdf', `bad: ${kind}`, limit),
      );
      expect(answer?.status, kind).toBe(status);
      expect(answer?.toJSON()).toEqual({
        success: false,
        error: 'INVALID_FORMAT',
        message: `bad: ${kind}`,
        supported: [...SUPPORTED_FORMATS],
        ...(limit !== undefined && { limit }),
      });
    }
    const slow = answerFor(pastLimit('analysis_time', 'too slow'));
    expect(slow?.status).toBe(422);
    expect(slow?.toJSON()).toMatchObject({
      error: 'INVALID_FORMAT',
      message: 'too slow',
      limit: 'analysis_time',
    });
  });

  it('answers an empty upload 400 NO_FILE with its name', () => {
    const answer = answerFor(new EmptyFileError('a.png'));
    expect(answer?.status).toBe(400);
    expect(answer?.toJSON()).toEqual({ success: false, error: 'NO_FILE', message: '`a.png` is empty' });
  });

  it('passes an ApiError through and leaves other errors to the caller (500)', () => {
    const api = new ApiError(404, 'NOT_FOUND', 'gone');
    expect(answerFor(api)).toBe(api);
    expect(answerFor(new Error('boom'))).toBeUndefined();
  });
});
