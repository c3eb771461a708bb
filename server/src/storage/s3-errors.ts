import { StoreUnavailableError } from './store-errors.js';

/**
 * The object storage refused the service's requests for a reason only the operator can fix (the bucket does
 * not exist, the credentials are wrong or lack a permission, the region is wrong). Unlike
 * {@link StoreUnavailableError} it does not go away by itself, so it is not answered as a 503 to retry.
 */
export class S3ConfigurationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'S3ConfigurationError';
  }
}

/** What the SDK's errors carry (service errors: `name` is the S3 error code; network errors: `code`). */
interface SdkErrorShape {
  name?: string;
  code?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
}

/** S3 error codes that mean "try again later". */
const UNAVAILABLE_CODES = new Set([
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TimeoutError',
  'RequestTimeoutException',
]);

/** What the operator must fix, per S3 error code (or HTTP status, for `HEAD` answers, which have no body). */
const FIXES: Record<string, string> = {
  NoSuchBucket: 'the bucket does not exist: create it, or fix the bucket name',
  NotFound: 'the bucket does not exist: create it, or fix the bucket name',
  AccessDenied:
    'access is denied: give these credentials s3:GetObject, s3:PutObject, s3:DeleteObject and s3:ListBucket on the bucket',
  Forbidden:
    'access is denied: check the credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY) and their permissions on the bucket',
  InvalidAccessKeyId: 'the access key id is unknown to the store: check AWS_ACCESS_KEY_ID',
  SignatureDoesNotMatch:
    'the secret access key does not match the access key id: check AWS_SECRET_ACCESS_KEY',
  InvalidToken: 'the session token is invalid: check AWS_SESSION_TOKEN',
  ExpiredToken: 'the session token has expired: renew the credentials',
  PermanentRedirect: 'the bucket is in another region: fix the region setting',
  AuthorizationHeaderMalformed: 'the region does not match the bucket: fix the region setting',
  CredentialsProviderError:
    'no credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or another source the AWS SDK reads)',
};

/**
 * The error to throw for an SDK failure of `what` on the store `where` (e.g. "S3 bucket `files` at
 * http://minio:9000"): {@link StoreUnavailableError} for network failures, 5xx and throttling;
 * {@link S3ConfigurationError} for what the operator must fix; `undefined` for anything else (the caller
 * rethrows the SDK's error). The SDK's error is kept as `cause`.
 */
export function classifyS3Error(error: unknown, what: string, where: string): Error | undefined {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  const status = shape.$metadata?.httpStatusCode;
  const code = shape.name ?? '';
  const fix =
    FIXES[code] ??
    (status === 403 ? FIXES.Forbidden : undefined) ??
    (status === 301 ? FIXES.PermanentRedirect : undefined);
  if (fix !== undefined) {
    return new S3ConfigurationError(`${what} on ${where} failed: ${fix} (${code || status})`, {
      cause: error,
    });
  }
  // Node's socket and DNS errors (ECONNREFUSED, ECONNRESET, ETIMEDOUT, ENOTFOUND…) carry no HTTP status.
  const networkFailure = status === undefined && /^E[A-Z_]+$/.test(shape.code ?? '');
  if (
    networkFailure ||
    (status !== undefined && status >= 500) ||
    status === 429 ||
    UNAVAILABLE_CODES.has(code)
  ) {
    const why = shape.code ?? (code || `HTTP ${status}`);
    return new StoreUnavailableError(`${what} on ${where} failed, the store is unavailable: ${why}`, 5, {
      cause: error,
    });
  }
  return undefined;
}
