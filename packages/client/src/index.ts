export type {
  AlreadySignedFile,
  FileMetadata,
  FileRecord,
  FileUrls,
  InspectResult,
  SignedEvent,
  SignedFile,
  SignResult,
  UnknownHash,
  VerifiedRecord,
  VerifyChecks,
  VerifyResult,
} from './answers.js';
export {
  type CallOptions,
  type ClientOptions,
  createClient,
  type SiegelClient,
  type UploadOptions,
} from './client.js';
export { type EmbedAuthorOptions, type EmbedFormat, embedAuthor, formatOf } from './embed/index.js';
export {
  AuthorRequiredError,
  BadRequestError,
  BunkerUnavailableError,
  type ClientErrorCode,
  EmbedError,
  ERROR_CLASSES,
  EventRefusedError,
  FileAlteredError,
  FileTooLargeError,
  InternalServerError,
  InvalidFormatError,
  InvalidHashError,
  NetworkError,
  NoFileError,
  NotFoundError,
  RateLimitedError,
  RecordAlteredError,
  ServerBusyError,
  type ServerErrorCode,
  SiegelError,
  type SiegelErrorInit,
  UnauthorizedError,
  UnexpectedResponseError,
} from './errors.js';
export { parseRetryAfter, RETRY_DEFAULTS, type RetryOptions } from './retry.js';
export type { FileInput, UploadProgress } from './upload-body.js';
