// The built package runs unchanged in browsers, Deno and Workers: its files import only one another and its
// one dependency's web entries (`@siegel/formats/embed`, and `@siegel/formats` when `readAuthor` is called) —
// nothing from `node:`, no other bare package name — and use no Node global. Pins the exported names too.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(PACKAGE, 'dist');

/** Every import and export specifier of a built module: static, dynamic and side-effect imports. */
export function specifiers(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(
    /\b(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["']([^"']+)["']/g,
  )) {
    found.push(match[1] as string);
  }
  for (const match of source.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g))
    found.push(match[1] as string);
  return found;
}

/** The entries of @siegel/formats, the one dependency, the client may import (web APIs only there too). */
const DEPENDENCY_ENTRIES = ['@siegel/formats', '@siegel/formats/embed'];

/** What is wrong with one built file: specifiers that leave the package (but for its dependency), Node globals. */
export function problemsOf(path: string, source: string, root: string): string[] {
  const problems: string[] = [];
  for (const specifier of specifiers(source)) {
    if (DEPENDENCY_ENTRIES.includes(specifier)) continue;
    if (!specifier.startsWith('./') && !specifier.startsWith('../')) {
      problems.push(`${path} imports \`${specifier}\``);
      continue;
    }
    const target = resolve(dirname(join(root, path)), specifier);
    if (relative(root, target).startsWith('..'))
      problems.push(`${path} imports \`${specifier}\` from outside the package`);
  }
  // Code, not comments: a Node global in a comment is harmless.
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
  for (const global of ['process', 'Buffer', 'require', '__dirname', 'setImmediate']) {
    if (new RegExp(`\\b${global}\\b`).test(code)) problems.push(`${path} uses the Node global \`${global}\``);
  }
  return problems;
}

let files: string[];

beforeAll(async () => {
  // The package's own build (tsc --build), so the check reads what `npm pack` ships.
  await promisify(execFile)(join(PACKAGE, '../../node_modules/.bin/tsc'), ['--build', PACKAGE]);
  files = (await readdir(DIST, { recursive: true })).map(String).filter((file) => file.endsWith('.js'));
});

describe('the built @siegel/client', () => {
  it('imports nothing from `node:`, nothing outside the package, and uses no Node global', async () => {
    expect(files.length).toBeGreaterThan(8);
    const problems: string[] = [];
    for (const file of files)
      problems.push(...problemsOf(file, await readFile(join(DIST, file), 'utf8'), DIST));
    expect(problems).toEqual([]);
  });

  it('its dependency’s writers (`@siegel/formats/embed`, all the client loads up front) import only one another', async () => {
    const formats = join(PACKAGE, '../formats/dist');
    await promisify(execFile)(join(PACKAGE, '../../node_modules/.bin/tsc'), [
      '--build',
      join(PACKAGE, '../formats'),
    ]);
    const seen = new Set<string>();
    const problems: string[] = [];
    const visit = async (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = await readFile(join(formats, file), 'utf8');
      problems.push(...problemsOf(file, source, formats));
      for (const specifier of specifiers(source).filter((found) => found.startsWith('.')))
        await visit(relative(formats, resolve(dirname(join(formats, file)), specifier)));
    };
    await visit('embed.js');
    expect(seen.size).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });

  it('the check finds a `node:` import, a bare package, a path out of the package and a Node global', () => {
    const source = [
      "import { readFile } from 'node:fs';",
      "import yaml from 'yaml';",
      "export { x } from '../../outside.js';",
      "const later = await import('node:zlib');",
      'const bytes = Buffer.from("x");',
      "import { ok } from './fine.js';",
    ].join('\n');
    expect(problemsOf('embed/a.js', source, '/pkg/dist')).toEqual([
      'embed/a.js imports `node:fs`',
      'embed/a.js imports `yaml`',
      'embed/a.js imports `../../outside.js` from outside the package',
      'embed/a.js imports `node:zlib`',
      'embed/a.js uses the Node global `Buffer`',
    ]);
  });

  it('exports exactly these names', async () => {
    const root = await import(join(DIST, 'index.js'));
    expect(Object.keys(root).sort()).toEqual([
      'AuthorRequiredError',
      'BadHeaderError',
      'BadRequestError',
      'BunkerUnavailableError',
      'ERROR_CLASSES',
      'EmbedError',
      'EventRefusedError',
      'FileAlteredError',
      'FileTooLargeError',
      'InternalServerError',
      'InvalidFormatError',
      'InvalidHashError',
      'InvalidTokenRequestError',
      'NetworkError',
      'NoFileError',
      'NotFoundError',
      'OriginNotAllowedError',
      'RETRY_DEFAULTS',
      'RateLimitedError',
      'RecordAlteredError',
      'ServerBusyError',
      'SiegelApiError',
      'SiegelError',
      'StoreUnavailableError',
      'UnauthorizedError',
      'UnexpectedResponseError',
      'UploadTokenExpiredError',
      'UploadTokenOriginError',
      'UploadTokenUsedUpError',
      'createClient',
      'embedAuthor',
      'formatOf',
      'mintUploadToken',
      'parseRetryAfter',
      'readAuthor',
    ]);
    const embed = await import(join(DIST, 'embed/index.js'));
    expect(Object.keys(embed).sort()).toEqual([
      'FORMAT_EXTENSIONS',
      'embedAuthor',
      'escapeXml',
      'formatOf',
      'readAuthor',
      'xmpPacket',
    ]);
  });

  it('keeps `SiegelError` as a deprecated alias of `SiegelApiError`: the same class, so `instanceof` holds', async () => {
    const root = await import(join(DIST, 'index.js'));
    expect(root.SiegelError).toBe(root.SiegelApiError);
    const error = new root.NotFoundError({ code: 'NOT_FOUND', message: 'no such hash', status: 404 });
    expect(error).toBeInstanceOf(root.SiegelApiError);
    expect(error).toBeInstanceOf(root.SiegelError);
    expect(new root.SiegelApiError({ code: 'INVALID_OPTIONS', message: 'x' }).name).toBe('SiegelApiError');
    const types = await readFile(join(DIST, 'errors.d.ts'), 'utf8');
    expect(types).toMatch(
      /@deprecated Use `SiegelApiError`[\s\S]*export declare const SiegelError: typeof SiegelApiError;/,
    );
  });
});
