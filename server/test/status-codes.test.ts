// Only `http/` knows HTTP status codes (issue 40, docs/architecture.md): the rooms below throw domain errors
// (`FormatError`, `EmptyFileError`, `SigningError`, `UploadTokenError`, `StoreUnavailableError`) and
// http/error-answers.ts turns them into answers. This scans server/src, comments left out (they may say
// which answer an error gets), for a status code in code outside `http/`. It reads files only.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { listSources } from '../../test/support/architecture.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Each way code can speak HTTP status, by name. */
const STATUS_USES = {
  /** The API's error answer: building, catching or importing it. */
  ApiError: /\bApiError\b/,
  /** Hono's HTTP error. */
  HTTPException: /\bHTTPException\b/,
  /** Status code types. */
  'status type': /hono\/utils\/http-status|\b(?:Contentful)?StatusCode\b/,
  /** A status compared, assigned or set as a field: `status: 422`, `statusCode === 404`, `status >= 500`. */
  'status number': /\b(?:status|statusCode|httpStatusCode)\s*(?:===?|!==?|[<>]=?|:|=)\s*[1-5]\d\d\b/,
  /** An answer with its status: `c.json(body, 404)`, `c.text('…', 503)`, `c.status(429)`. */
  'answer status':
    /\.(?:json|text|body|html|newResponse|redirect)\([^;]*?,\s*[1-5]\d\d\s*[,)]|\.status\(\s*[1-5]\d\d\b/,
} as const;

type StatusUse = keyof typeof STATUS_USES;

/** Files outside `http/` that may speak status, each for the uses named and why. */
const EXCEPTIONS: { file: string; uses: StatusUse[]; reason: string }[] = [
  {
    file: 'storage/s3-errors.ts',
    uses: ['status number'],
    reason: "it reads S3's own HTTP answers (403, 301, 429, 5xx) to tell a wrong setting from an outage",
  },
  {
    file: 'storage/s3-storage.ts',
    uses: ['status number'],
    reason: "a HEAD's bare 404 from S3 is how S3 says an object is missing",
  },
  {
    file: 'index.ts',
    uses: ['ApiError'],
    reason: "the package's API re-exports http/'s ApiError for its callers; it answers nothing itself",
  },
];

/** `text` without its comments (TypeScript's own printer, so `//` in a string stays). */
function withoutComments(file: string, text: string): string {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  return ts.createPrinter({ removeComments: true }).printFile(source);
}

/** The status uses found in `sources` (path relative to server/src → text), as `file: use (match)`. */
function findStatusUses(sources: ReadonlyMap<string, string>, exceptions = EXCEPTIONS): string[] {
  const found: string[] = [];
  for (const [file, text] of sources) {
    if (file.startsWith('http/')) continue;
    const code = withoutComments(file, text);
    const allowed = exceptions.find((exception) => exception.file === file)?.uses ?? [];
    for (const [use, pattern] of Object.entries(STATUS_USES) as [StatusUse, RegExp][]) {
      const match = pattern.exec(code);
      if (match !== null && !allowed.includes(use))
        found.push(`${file}: ${use} (${match[0].replace(/\s+/g, ' ')})`);
    }
  }
  return found;
}

describe('only http/ knows HTTP status codes', async () => {
  const files = await listSources(SRC);
  const sources = new Map(
    await Promise.all(files.map(async (file) => [file, await readFile(join(SRC, file), 'utf8')] as const)),
  );

  it('scans every source of server/src, http/ and the domain rooms alike', () => {
    for (const file of [
      'http/error-answers.ts',
      'http/api-error.ts',
      'metadata/analyze-file.ts',
      'analysis/analysis-worker.ts',
      'signing/file-signer.ts',
      'web/event-page.tsx',
    ])
      expect(files).toContain(file);
  });

  it('finds no status code outside http/ but the listed exceptions', () => {
    expect(findStatusUses(sources)).toEqual([]);
  });

  it('lists no exception that is not needed (each one still matches its file)', () => {
    for (const { file, uses } of EXCEPTIONS) {
      const code = withoutComments(file, sources.get(file) ?? '');
      for (const use of uses) expect(STATUS_USES[use].test(code), `${file}: ${use}`).toBe(true);
    }
  });

  it('sees status codes in http/ itself (what the scan looks for is there to find)', () => {
    const inHttp = new Map([...sources].filter(([file]) => file.startsWith('http/')));
    const asIfOutside = new Map([...inHttp].map(([file, text]) => [`elsewhere/${file}`, text]));
    const uses = new Set(findStatusUses(asIfOutside).map((line) => line.split(': ')[1]?.split(' (')[0]));
    expect([...uses].sort()).toEqual(Object.keys(STATUS_USES).sort());
  });
});

describe('the status scan fails on planted sources', () => {
  const planted = (file: string, text: string) => findStatusUses(new Map([[file, text]]));

  it('names each use outside http/, with its file', () => {
    expect(planted('metadata/a.ts', "throw new ApiError(400, 'NO_FILE', 'empty');\n")).toEqual([
      'metadata/a.ts: ApiError (ApiError)',
    ]);
    expect(planted('records/b.ts', "import { HTTPException } from 'hono/http-exception';\n")).toEqual([
      'records/b.ts: HTTPException (HTTPException)',
    ]);
    expect(planted('signing/c.ts', "import type { StatusCode } from 'hono/utils/http-status';\n")).toEqual([
      'signing/c.ts: status type (StatusCode)',
    ]);
    expect(planted('analysis/d.ts', 'port.postMessage({ ok: false, status: 422 });\n')).toEqual([
      'analysis/d.ts: status number (status: 422)',
    ]);
    expect(planted('web/e.tsx', 'export const page = (c) => c.json({ success: false }, 404);\n')).toEqual([
      'web/e.tsx: answer status (.json({ success: false }, 404))',
    ]);
  });

  it('passes the same sources in http/, and comments that name a status anywhere', () => {
    expect(planted('http/a.ts', "throw new ApiError(400, 'NO_FILE', 'empty');\n")).toEqual([]);
    expect(
      planted('config/f.ts', '// answered 503 STORE_UNAVAILABLE, status: 503\nexport const f = 1;\n'),
    ).toEqual([]);
    expect(
      planted('config/g.ts', "/** `new ApiError(422, …)` */\nexport const url = 'https://x/422';\n"),
    ).toEqual([]);
  });

  it("an exception allows only its file's named uses", () => {
    expect(planted('storage/s3-errors.ts', 'const gone = status === 404;\n')).toEqual([]);
    expect(planted('storage/s3-errors.ts', "throw new ApiError(503, 'STORE_UNAVAILABLE', 'x');\n")).toEqual([
      'storage/s3-errors.ts: ApiError (ApiError)',
    ]);
    expect(planted('storage/other.ts', 'const gone = status === 404;\n')).toEqual([
      'storage/other.ts: status number (status === 404)',
    ]);
  });
});
