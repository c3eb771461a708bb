import { describe, expect, it } from 'vitest';
import { readServerConfig, SERVER_DEFAULTS } from '../src/config.js';
import * as server from '../src/index.js';

describe('@siegel/server', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(server).sort()).toEqual(
      [
        'ApiError',
        'DuplicateRecordError',
        'FILE_EVENT_KIND',
        'FileSigner',
        'FilesystemStorage',
        'MIGRATIONS',
        'PLACEHOLDER_AUTHORS',
        'SERVER_DEFAULTS',
        'SUPPORTED_FORMATS',
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

  it('reads the DESIGN defaults and refuses malformed values, quoting them', () => {
    expect(readServerConfig({}, '/srv')).toEqual({
      host: '127.0.0.1',
      port: 8787,
      baseUrl: 'http://localhost:8787',
      cdnUrl: 'http://localhost:8787',
      dataDir: '/srv/data',
      signTokens: [],
      maxUploadBytes: SERVER_DEFAULTS.maxUploadBytes,
      rateLimitPerMinute: 60,
    });
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
    expect(() => readServerConfig({ PORT: 'eighty' })).toThrow('`eighty`');
    expect(() => readServerConfig({ BASE_URL: 'ftp://x' })).toThrow('`ftp://x`');
  });
});
