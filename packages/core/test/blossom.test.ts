// The Blossom client's pure parts (issue 36, item 4): which server URLs `--blossom` and SIEGEL_BLOSSOM take,
// the Content-Type a blob is uploaded with, and the report lines of `siegel publish --blossom`. The uploads
// themselves run against a real store in test/nostr/blossom-publish.test.ts.
import { describe, expect, it } from 'vitest';
import { blobContentType, parseBlossomServers, readBlossomServersFromEnv } from '../src/net/blossom.js';
import { formatBlossomReport } from '../src/pipeline/publish-blossom.js';

describe('Blossom server URLs', () => {
  it('takes https://, and http:// on loopback only; trims, drops the trailing / and duplicates', () => {
    expect(
      parseBlossomServers([
        ' https://blossom.example/ ',
        'https://blossom.example',
        '',
        'http://127.0.0.1:3000/',
      ]),
    ).toEqual(['https://blossom.example', 'http://127.0.0.1:3000']);
    expect(readBlossomServersFromEnv('https://a.example,https://b.example/x/')).toEqual([
      'https://a.example',
      'https://b.example/x',
    ]);
    expect(readBlossomServersFromEnv('  ')).toEqual([]);
  });

  it.each([
    'http://blossom.example',
    'wss://blossom.example',
    'https://user:pw@blossom.example',
    'https://blossom.example/?x=1',
    'https://blossom.example/#top',
    'blossom.example',
  ])('refuses `%s`, naming it and where it came from', (value) => {
    expect(() => parseBlossomServers([value], '--blossom')).toThrow(
      `Blossom server \`${value}\` (--blossom) must be an https:// URL`,
    );
  });
});

describe('uploads', () => {
  it('a blob goes up with the Content-Type of its extension', () => {
    expect(blobContentType('/blog/index.html')).toBe('text/html; charset=utf-8');
    expect(blobContentType('/assets/app.MJS')).toBe('text/javascript; charset=utf-8');
    expect(blobContentType('/fonts/a.woff2')).toBe('font/woff2');
    expect(blobContentType('/data.bin')).toBe('application/octet-stream');
  });

  it('reports per server, and per reason the failed files, sorted, at most five named', () => {
    const failed = ['/f.css', '/e.css', '/d.css', '/c.css', '/b.css', '/a.css'].map((path) => ({
      path,
      sha256: '0'.repeat(64),
      reason: 'PUT /upload answered 413 Payload Too Large',
    }));
    expect(
      formatBlossomReport({
        blobs: 8,
        failed: 6,
        servers: [
          { server: 'https://a.example', uploaded: 8, present: 0, failed: [] },
          { server: 'https://b.example', uploaded: 1, present: 1, failed },
        ],
      }),
    ).toEqual([
      { text: 'Siegel: Blossom https://a.example: 8 uploaded, 0 already there (8 blobs)', failed: false },
      {
        text: 'Siegel: Blossom https://b.example: 1 uploaded, 1 already there, 6 failed (8 blobs)',
        failed: true,
      },
      {
        text: 'Siegel: Blossom https://b.example: 6 not uploaded — PUT /upload answered 413 Payload Too Large: /a.css, /b.css, /c.css, /d.css, /e.css, and 1 more',
        failed: true,
      },
    ]);
  });
});
