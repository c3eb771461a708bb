export {
  decodePdfText,
  FormatError,
  isRealAuthor,
  PLACEHOLDER_AUTHORS,
  SUPPORTED_FORMATS,
} from '@siegel/formats';
export { readServerConfig, SERVER_DEFAULTS, type ServerConfig } from './config/config.js';
export { ApiError, type ApiErrorCode } from './http/api-error.js';
export { type AppDeps, createApp, type SiegelApp } from './http/app.js';
export { analyzeFile, EmptyFileError, type FileAnalysis } from './metadata/analyze-file.js';
export { readPdfMetadata, readTextMetadata, readXmp } from './metadata/readers.js';
export { createFileEvent, FILE_EVENT_KIND } from './records/file-event.js';
export { type FileUrls, fileUrls } from './records/public-urls.js';
export { checkStoredEvent, EventVerifier, type RecordVerdict } from './records/verify-record.js';
export { FileSigner, type FileSignerOptions } from './signing/file-signer.js';
export { SigningError, type SigningErrorKind } from './signing/signing-error.js';
export type { FileStorage } from './storage/file-storage.js';
export { FilesystemStorage } from './storage/filesystem-storage.js';
export {
  DuplicateRecordError,
  type HashClaims,
  type RecordDatabase,
  type RecordStore,
  type SignedFileRecord,
} from './storage/record-store.js';
export { MIGRATIONS, SqliteRecordStore } from './storage/sqlite-record-store.js';
export type { UploadTokenStore } from './storage/upload-token-store.js';
