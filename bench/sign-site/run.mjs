// Bench (not a test), issue 3 acceptance 6: signing a generated site of N realistic pages (15–30 KB, nav,
// footer, islands) through a local `siegel-bunker` process, against a bare parse5 parse (read + parse5.parse)
// of the same pages in the same run:
//   cold    empty cache, unsigned build                 goal ≤ 1.5× the parse
//   warm    cache from the cold run, fresh unsigned build goal ≤ 0.25× the parse
//   one     as warm, but one page's <main> changed
// and the peak RSS of each signing process (goal ≤ 400 MB). Each phase runs in its own process.
//
//   npm run build && node bench/sign-site/run.mjs            # 10 000 pages, sites on tmpfs (/dev/shm)
//   BENCH_PAGES=2000 node bench/sign-site/run.mjs
//   BENCH_DIR=/tmp node bench/sign-site/run.mjs              # sites on that directory's file system (disk)
//
// The sites go to /dev/shm by default: the ratios are Siegel's cost against the parse's, and on this VM's
// disk the same warm run took anything from 3.3 s to 10.8 s within minutes (I/O floor alone 0.3–0.9× the
// parse), so disk figures measure the disk. The file system used is printed with the figures.
//   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" …        # extra node arguments for each measured phase
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBunker } from '../../test/support/bunker-process.ts';
import { generateSite } from './generate-site.mjs';

const PAGES = Number(process.env.BENCH_PAGES ?? 10_000);
const SITE = 'https://example.com';
const MEASURE = fileURLToPath(new URL('./measure.mjs', import.meta.url));

// Each phase starts on a settled file system: `sync` first, so the dirty pages of the copy made for it (or
// of the phase before) are not written back inside its time.
function measure(args) {
  execFileSync('sync');
  return new Promise((resolve, reject) => {
    const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const child = spawn(process.execPath, [...nodeArgs, MEASURE, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)))
        : reject(new Error(`${args[0]} exited ${code}`)),
    );
  });
}

/** The type of the file system `dir` is on (`tmpfs`, `ext4`, …), from /proc/mounts; `?` elsewhere. */
function fileSystemOf(dir) {
  let best = { mountPoint: '', type: '?' };
  try {
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, mountPoint = '', type = '?'] = line.split(' ');
      const inside =
        dir === mountPoint || dir.startsWith(mountPoint.endsWith(sep) ? mountPoint : mountPoint + sep);
      if (inside && mountPoint.length >= best.mountPoint.length) best = { mountPoint, type };
    }
  } catch {}
  return best.type;
}

const base = process.env.BENCH_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
const root = await mkdtemp(join(base, 'siegel-bench-site-'));
const bunker = await startBunker();
try {
  const build = join(root, 'build');
  const t = performance.now();
  const paths = await generateSite(build, PAGES, 3);
  console.error(`generated ${PAGES} pages in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const cacheFile = join(root, '.sign-cache.json');
  const fresh = async (name) => {
    const dir = join(root, name);
    await cp(build, dir, { recursive: true });
    return dir;
  };
  const sign = async (dir) => measure(['sign', dir, cacheFile, bunker.url, bunker.apiToken, SITE]);

  const parse1 = await measure(['parse', build]);
  const coldDir = await fresh('cold');
  const cold = await sign(coldDir);
  const warmDir = await fresh('warm');
  const warm = await sign(warmDir);
  const oneDir = await fresh('one');
  const changed = join(oneDir, paths[Math.floor(PAGES / 2)]);
  await writeFile(
    changed,
    (await readFile(changed, 'utf8')).replace('<article><h1>', '<article><h1>Geändert: '),
  );
  const one = await sign(oneDir);
  // The I/O floor: the files a signed run writes (each page, a verify page and an event per page), with
  // nothing computed — no parse, no hash, no signature.
  const writes = await measure(['writes', await fresh('writes')]);
  const parse2 = await measure(['parse', build]);
  const parseMs = Math.min(parse1.ms, parse2.ms);

  const row = (name, r, goal) =>
    `${name.padEnd(6)} ${(r.ms / 1000).toFixed(2).padStart(7)} s  ${(r.ms / parseMs).toFixed(2).padStart(5)}× parse  ` +
    `${String(r.maxRssMb).padStart(4)} MB peak RSS  ${goal}  ${JSON.stringify(r.summary)}`;
  const os = await import('node:os');
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(
    `sign-site bench, ${PAGES} pages in ${root} (${fileSystemOf(root)}; ${process.version}, ${os.cpus().length} cores, load ${load})`,
  );
  console.log(
    `parse  ${(parseMs / 1000).toFixed(2).padStart(7)} s  (read + parse5.parse; runs: ${(parse1.ms / 1000).toFixed(2)} s, ${(parse2.ms / 1000).toFixed(2)} s; ${parse1.maxRssMb} MB)`,
  );
  console.log(row('cold', cold, 'goal ≤ 1.5×'));
  console.log(row('warm', warm, 'goal ≤ 0.25×'));
  console.log(row('one', one, 'goal ≤ 0.25×'));
  console.log(
    `writes ${(writes.ms / 1000).toFixed(2).padStart(7)} s  ${(writes.ms / parseMs).toFixed(2).padStart(5)}× parse  (I/O floor: what a warm run reads and writes, done the same way, nothing computed)`,
  );
  const ok =
    cold.ms <= 1.5 * parseMs &&
    warm.ms <= 0.25 * parseMs &&
    Math.max(cold.maxRssMb, warm.maxRssMb, one.maxRssMb) <= 400;
  console.log(ok ? 'all goals met' : 'GOALS NOT MET');
} finally {
  await bunker.stop();
  await rm(root, { recursive: true, force: true });
}
