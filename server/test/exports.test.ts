import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { readServerConfig, SERVER_DEFAULTS } from '../src/config/config.js';
import * as server from '../src/index.js';

describe('@siegel/server', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(server).sort()).toEqual(
      [
        'ApiError',
        'DuplicateRecordError',
        'EmptyFileError',
        'EventVerifier',
        'FILE_EVENT_KIND',
        'FileSigner',
        'FormatError',
        'FilesystemStorage',
        'MIGRATIONS',
        'PLACEHOLDER_AUTHORS',
        'SERVER_DEFAULTS',
        'SUPPORTED_FORMATS',
        'SigningError',
        'SqliteRecordStore',
        'analyzeFile',
        'checkStoredEvent',
        'createApp',
        'createFileEvent',
        'decodePdfText',
        'fileUrls',
        'isRealAuthor',
        'readPdfMetadata',
        'readServerConfig',
        'readTextMetadata',
        'readXmp',
      ].sort(),
    );
  });

  it('reads the documented defaults and refuses malformed values, quoting them', () => {
    expect(readServerConfig({}, '/srv')).toEqual({
      host: '127.0.0.1',
      port: 8787,
      baseUrl: 'http://localhost:8787',
      cdnUrl: 'http://localhost:8787',
      dataDir: '/srv/data',
      signTokens: [],
      corsOrigins: [],
      signPubkeys: [],
      maxUploadBytes: SERVER_DEFAULTS.maxUploadBytes,
      rateLimitPerMinute: 60,
      maxUploadsInFlight: 8,
      maxBufferedBytes: 128 * 1024 * 1024,
      uploadWaitMs: 10_000,
      maxDownloadBufferedBytes: 64 * 1024 * 1024,
      analysisWorkers: Math.max(1, Math.min(4, availableParallelism())),
      analysisTimeoutMs: 5000,
      relays: [],
      relayRetryMs: 30_000,
      relayWaitMs: 2000,
      databaseUrl: undefined,
      databaseTimeoutMs: 5000,
      s3: undefined,
      fileRedirect: 'proxy',
      claimLeaseMs: 60_000,
      orphanSweepMs: 3_600_000,
      verifyUrl: {
        rateLimitPerMinute: 30,
        hostRateLimitPerMinute: 20,
        cacheMs: 30_000,
        maxInFlight: 8,
        timeoutMs: 20_000,
        requestTimeoutMs: 8000,
        maxPageBytes: 5 * 1024 * 1024,
        maxRedirects: 5,
      },
    });
    expect(readServerConfig({ RELAY_WAIT_MS: '0' }).relayWaitMs).toBe(0);
    expect(
      readServerConfig({ VERIFY_URL_CACHE_MS: '0', VERIFY_URL_HOST_RATE_LIMIT: '3' }).verifyUrl,
    ).toMatchObject({ cacheMs: 0, hostRateLimitPerMinute: 3 });
    expect(() => readServerConfig({ VERIFY_URL_RATE_LIMIT: '0' })).toThrow(
      'VERIFY_URL_RATE_LIMIT must be a positive integer, got `0`',
    );
    expect(readServerConfig({ DATABASE_TIMEOUT_MS: '1500' }).databaseTimeoutMs).toBe(1500);
    expect(() => readServerConfig({ DATABASE_TIMEOUT_MS: '0' })).toThrow(
      'DATABASE_TIMEOUT_MS must be a positive integer, got `0`',
    );
    expect(
      readServerConfig(
        { BASE_URL: 'https://s.example/', CDN_URL: 'https://cdn.example', SIGN_API_TOKENS: ' a, ,b ' },
        '/',
      ),
    ).toMatchObject({
      baseUrl: 'https://s.example',
      cdnUrl: 'https://cdn.example',
      signTokens: ['a', 'b'],
    });
    expect(
      readServerConfig({ SIGN_CORS_ORIGINS: 'https://a.example, http://127.0.0.1:5173' }).corsOrigins,
    ).toEqual(['https://a.example', 'http://127.0.0.1:5173']);
    expect(() => readServerConfig({ SIGN_CORS_ORIGINS: 'https://a.example/path' })).toThrow(
      '`https://a.example/path`',
    );
    // SIGN_PUBKEYS: npub or hex (any case), as lowercase hex, duplicates dropped; anything else stops the start.
    const hex = '3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d';
    expect(
      readServerConfig({
        SIGN_PUBKEYS: ` npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6, ${hex.toUpperCase()} ,`,
      }).signPubkeys,
    ).toEqual([hex]);
    expect(() => readServerConfig({ SIGN_PUBKEYS: `${hex},nsec1abc` })).toThrow(
      'SIGN_PUBKEYS must list Nostr public keys (npub1… or 64 hex characters), comma-separated; `nsec1abc` is none',
    );
    expect(() => readServerConfig({ PORT: 'eighty' })).toThrow('`eighty`');
    expect(() => readServerConfig({ BASE_URL: 'ftp://x' })).toThrow('`ftp://x`');
  });

  it('reads the PostgreSQL and S3 settings, and refuses what cannot work without quoting a password', () => {
    expect(
      readServerConfig({
        DATABASE_URL: 'postgres://siegel:secret@db.example:5433/siegel',
        S3_BUCKET: 'files',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_FORCE_PATH_STYLE: 'true',
        S3_PREFIX: '/siegel/',
        FILE_REDIRECT: 'presigned',
        CLAIM_LEASE_MS: '5000',
        ORPHAN_SWEEP_MS: '0',
      }),
    ).toMatchObject({
      databaseUrl: 'postgres://siegel:secret@db.example:5433/siegel',
      s3: {
        bucket: 'files',
        endpoint: 'http://127.0.0.1:9000',
        region: 'us-east-1',
        forcePathStyle: true,
        prefix: 'siegel',
        stampMs: 15_000,
      },
      fileRedirect: 'presigned',
      claimLeaseMs: 5000,
      orphanSweepMs: 0,
    });
    expect(readServerConfig({ S3_BUCKET: 'b', S3_REGION: 'auto' }).s3).toEqual({
      bucket: 'b',
      endpoint: undefined,
      region: 'auto',
      forcePathStyle: false,
      prefix: '',
      stampMs: 15_000,
    });
    const refusal = (env: Record<string, string>) => {
      try {
        readServerConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal({ DATABASE_URL: 'mysql://root:hunter2@db/x' })).toMatch(
      /^DATABASE_URL must be a PostgreSQL URL/,
    );
    expect(refusal({ DATABASE_URL: 'mysql://root:hunter2@db/x' })).not.toContain('hunter2');
    expect(refusal({ S3_ENDPOINT: 'http://127.0.0.1:9000' })).toBe(
      'S3_ENDPOINT is set but S3_BUCKET is not: set S3_BUCKET to keep files in S3',
    );
    expect(refusal({ S3_BUCKET: 'b', S3_FORCE_PATH_STYLE: 'yes' })).toBe(
      'S3_FORCE_PATH_STYLE must be `true` or `false`, got `yes`',
    );
    expect(refusal({ FILE_REDIRECT: 'presigned' })).toBe(
      'FILE_REDIRECT=presigned needs files in S3 (S3_BUCKET)',
    );
    expect(refusal({ FILE_REDIRECT: 'cdn' })).toBe('FILE_REDIRECT must be `proxy` or `presigned`, got `cdn`');
  });

  it('reads the admission and analysis settings; the buffer budget always holds one largest upload', () => {
    expect(
      readServerConfig({
        MAX_UPLOADS_IN_FLIGHT: '3',
        MAX_BUFFERED_BYTES: '50000000',
        UPLOAD_WAIT_MS: '0',
        ANALYSIS_WORKERS: '1',
        ANALYSIS_TIMEOUT_MS: '250',
      }),
    ).toMatchObject({
      maxUploadsInFlight: 3,
      maxBufferedBytes: 50_000_000,
      uploadWaitMs: 0,
      analysisWorkers: 1,
      analysisTimeoutMs: 250,
    });
    // A larger upload limit raises the default budget to one such upload and its multipart framing.
    expect(readServerConfig({ MAX_UPLOAD_BYTES: String(200 * 1024 * 1024) }).maxBufferedBytes).toBe(
      200 * 1024 * 1024 + 64 * 1024,
    );
    expect(() => readServerConfig({ MAX_BUFFERED_BYTES: '1000' })).toThrow(
      'MAX_BUFFERED_BYTES must hold at least one upload (MAX_UPLOAD_BYTES + 65536 = 26279936), got `1000`',
    );
    expect(() => readServerConfig({ ANALYSIS_WORKERS: '0' })).toThrow(
      'ANALYSIS_WORKERS must be a positive integer, got `0`',
    );
    expect(() => readServerConfig({ UPLOAD_WAIT_MS: '-1' })).toThrow(
      'UPLOAD_WAIT_MS must be an integer of 0 or more, got `-1`',
    );
  });

  it('reads the relays to publish to (wss://, ws:// only on loopback) and the retry wait', () => {
    expect(
      readServerConfig({ SIEGEL_RELAYS: 'wss://relay.example, ws://127.0.0.1:7000', RELAY_RETRY_MS: '1000' }),
    ).toMatchObject({ relays: ['wss://relay.example', 'ws://127.0.0.1:7000'], relayRetryMs: 1000 });
    expect(() => readServerConfig({ SIEGEL_RELAYS: 'ws://relay.example' })).toThrow(
      'Relay `ws://relay.example` (SIEGEL_RELAYS) must be a wss:// URL (ws:// only on a loopback host)',
    );
  });
});
