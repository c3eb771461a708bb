import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Four ideas that must exist exactly once in the repository, each in its home in @siegel/core, which the
// other packages import on a subpath. A second copy drifts: a fix (a timing leak, an fsync, a WebAssembly
// self-test) then lands in one place and not the other.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Idea {
  name: string;
  home: string;
  /** What only the home may contain. */
  pattern: RegExp;
  /** Copies kept on purpose, each for the reason its file gives. */
  alsoIn?: string[];
}

const IDEAS: Idea[] = [
  {
    name: 'a Schnorr/WebAssembly loader',
    home: 'packages/core/src/nostr/crypto.ts',
    pattern:
      /['"](?:nostr-wasm|nostr-tools\/wasm|@noble\/curves(?:\/[^'"]*)?|@noble\/secp256k1)['"]|\b(?:initNostrWasm|setNostrWasm)\b|\bWebAssembly\.(?:instantiate|compile)\b/,
  },
  {
    name: 'a bearer-token comparison',
    home: 'packages/core/src/auth/tokens.ts',
    // Node's and Hono's constant-time comparisons, a comparison function of our own, or Hono's bearerAuth
    // comparing a fixed `token` itself (it must call the one comparison through `verifyToken`).
    pattern:
      /\btimingSafeEqual\b|\bfunction\s+\w*(?:tokens?Equal|[Ss]afeEqual)\b|bearerAuth\(\s*\{[^}]*\btoken\s*:/,
  },
  {
    name: 'an atomic file write',
    home: 'packages/core/src/fs/atomic-write.ts',
    // A definition under either name, or the temp-file-and-rename it is made of.
    pattern:
      /\b(?:function\s+|(?:const|let)\s+)(?:writeFileAtomic\w*|writeFileDurable)\b|\brename(?:Sync)?\(|\.sync\(\)|\bfsyncSync?\(/,
  },
  {
    name: 'a backoff formula (a wait doubled per attempt)',
    home: 'packages/core/src/net/backoff.ts',
    // `first * 2 ** attempt` in any spelling, or a wait doubled in a loop up to a bound.
    pattern:
      /\*\s*2\s*\*\*\s*(?:Math\.max\(\s*0\s*,\s*)?\(?\s*[A-Za-z_$]|\bMath\.min\(\s*[\w.$]+\s*\*\s*2\s*,/,
    // `@siegel/client` has no dependency, so it keeps its own (packages/client/src/retry.ts says so).
    alsoIn: ['packages/client/src/retry.ts'],
  },
];

/** Source the packages ship or run: not tests, fixtures, build output or dependencies. */
const SOURCE_DIRS = ['packages', 'server', 'scripts', 'bench', 'examples'];
const SKIP = new Set(['node_modules', 'dist', 'test', 'fixtures', '.astro', '_site', 'public']);

async function listSources(dir: string): Promise<string[]> {
  const files: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listSources(path)));
    else if (/\.(?:ts|tsx|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

describe('one home per idea', async () => {
  const sources = new Map<string, string>();
  for (const dir of SOURCE_DIRS) {
    for (const file of await listSources(join(ROOT, dir))) {
      sources.set(relative(ROOT, file).split('\\').join('/'), await readFile(file, 'utf8'));
    }
  }

  for (const idea of IDEAS) {
    it(`${idea.name} lives only in ${idea.home}`, () => {
      // The pattern must see the home itself, or it would see nothing anywhere.
      expect(idea.pattern.test(sources.get(idea.home) ?? ''), `${idea.home} matches`).toBe(true);
      const elsewhere = [...sources]
        .filter(
          ([path, text]) => path !== idea.home && !idea.alsoIn?.includes(path) && idea.pattern.test(text),
        )
        .map(([path, text]) => `${path}: ${text.match(idea.pattern)?.[0]}`);
      expect(elsewhere).toEqual([]);
    });
  }

  it('scans the packages, the server, the scripts and the benches', () => {
    const scanned = [...sources.keys()];
    for (const expected of [
      'packages/bunker/src/key-file.ts',
      'server/src/main.ts',
      'scripts/demo.mjs',
      'packages/core/src/pipeline/sign-site.ts',
    ]) {
      expect(scanned).toContain(expected);
    }
    expect(scanned.some((path) => path.includes('/test/') || path.includes('node_modules'))).toBe(false);
  });

  it('would catch a copy: each pattern matches what a second copy looks like', () => {
    const copies = [
      "const [{ initNostrWasm }] = await Promise.all([import('nostr-wasm')]);",
      "import { timingSafeEqual } from 'node:crypto';",
      "app.use(bearerAuth({ token: 'secret' }));",
      'export async function writeFileAtomic(path: string, data: string) {}',
      'await rename(temp, path);',
      'const delay = connection.retryDelayMs * 2 ** attempt * (0.75 + Math.random() * 0.5);',
      'return Math.min(max, base * 2 ** Math.max(0, attempts - 1));',
      'wait = Math.min(wait * 2, LONGEST_RELISTEN_MS);',
    ];
    for (const copy of copies) {
      expect(
        IDEAS.some((idea) => idea.pattern.test(copy)),
        copy,
      ).toBe(true);
    }
  });
});
