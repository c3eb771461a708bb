// Bench (not a test), issues 3 and 24: signing a generated site of N realistic pages (15–30 KB, nav,
// footer, islands, and the CSS, JS and images they reference) through a local `siegel-bunker` process,
// against a bare parse5 parse (read + parse5.parse, one thread) of the same pages in the same run:
//   cold    empty cache, unsigned build                     goal ≤ 1.0× the parse (aim 0.6×)
//   warm    cache from the cold run, fresh unsigned build   goal ≤ 1.5× the I/O floor
//   one     as warm, but one page's <main> changed
//   writes  the I/O floor: what a warm run reads (pages and assets) and writes, the same way, nothing computed
//   verify  `siegel verify <cold site> --site …` (the CLI, in its own process)  goal ≤ 1.0× the parse (aim 0.6×)
// and, for cold, warm and one, the site manifest's share of the run: time, events signed, layout and bytes.
// and the peak RSS of each process (goal ≤ 250 MB), with the size of the signing cache file beside it.
// Each phase runs in its own process; every figure is a ratio to the parse measured in the same run.
//
//   npm run build && node bench/sign-site/run.mjs            # 10 000 pages, sites on tmpfs (/dev/shm)
//   BENCH_PAGES=2000 node bench/sign-site/run.mjs            # or: node bench/sign-site/run.mjs 2000
//   BENCH_PHASES=cold,verify node bench/sign-site/run.mjs     # only those (and the parse); verify needs cold
//   BENCH_DIR=/tmp node bench/sign-site/run.mjs              # sites on that directory's file system (disk)
//
// The sites go to /dev/shm by default: the ratios are Siegel's cost against the parse's, and on this VM's
// disk the same warm run took anything from 3.3 s to 10.8 s within minutes (I/O floor alone 0.3–0.9× the
// parse), so disk figures measure the disk. The file system used is printed with the figures.
//   BENCH_NODE_ARGS="--max-semi-space-size=16" …             # extra node arguments for each measured phase
//   BENCH_PROFILE=0 node bench/sign-site/run.mjs             # without the CPU profiles (below)
//   BENCH_PROFILE_KEEP=1 node bench/sign-site/run.mjs        # keep them, to read (`.cpuprofile`: Chrome DevTools)
//
// Where the time goes: each signing phase and verify run under `node --cpu-prof` (V8's sampling profiler,
// every thread, 1 ms), and a line per phase splits its CPU time into read, parse, checks, hash, sign, write,
// cache, publish, gc and other (profile-phases.mjs). The profiler's own cost is in that phase's figures;
// BENCH_PROFILE=0 measures without it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SIEGEL_NODE_ENV, SIEGEL_NODE_FLAGS } from '../../packages/core/bin/require-node.js';
import { startBunker } from '../../test/support/bunker-process.ts';
import { generateSite } from './generate-site.mjs';
import { runCliWithPeak } from './peak-rss.mjs';
import { describeProfile, summarizeProfiles } from './profile-phases.mjs';

const PAGES = Number(process.argv[2] ?? process.env.BENCH_PAGES ?? 10_000);
if (!Number.isInteger(PAGES) || PAGES < 1)
  throw new Error(
    `the number of pages must be a whole number ≥ 1, got \`${process.argv[2] ?? process.env.BENCH_PAGES}\``,
  );
const ALL_PHASES = ['cold', 'warm', 'one', 'writes', 'verify'];
const PHASES = (process.env.BENCH_PHASES ?? ALL_PHASES.join(',')).split(',').filter(Boolean);
for (const phase of PHASES)
  if (!ALL_PHASES.includes(phase))
    throw new Error(`unknown phase \`${phase}\` in BENCH_PHASES (${ALL_PHASES.join(', ')})`);
if (PHASES.some((phase) => ['warm', 'one', 'verify'].includes(phase)) && !PHASES.includes('cold'))
  PHASES.unshift('cold'); // warm and one use its cache, verify its signed site
const SITE = 'https://example.com';
const MEASURE = fileURLToPath(new URL('./measure.mjs', import.meta.url));
const nodeArgs = () => process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
/**
 * The node flags `siegel` runs with (SIEGEL_NODE_FLAGS: its launcher starts again with them): the signing
 * phases, which call signSite in-process, run with them as the CLI would; `siegel verify` is the CLI and
 * sets them itself. The parse and the I/O floor run with Node's defaults. BENCH_CLI_NODE_ARGS replaces
 * them, for every phase that is the CLI's work, to compare settings side by side (a blank value: Node's
 * defaults for the signing phases; the CLI adds its own unless the value sets the option). The signing
 * phases get the CLI's environment too (SIEGEL_NODE_ENV, unless set: `MALLOC_ARENA_MAX=16 node bench/…`
 * compares with glibc's default on two cores).
 */
const cliNodeArgs = () => (process.env.BENCH_CLI_NODE_ARGS?.split(' ') ?? SIEGEL_NODE_FLAGS).filter(Boolean);
const PROFILE = process.env.BENCH_PROFILE !== '0';
/** Each profiled phase's profile folder (`--cpu-prof-dir`), by phase name. */
const profiles = new Map();
/** The node arguments that profile `phase` into a folder of its own (none with BENCH_PROFILE=0). */
async function profiling(phase) {
  if (!PROFILE) return [];
  const dir = await mkdtemp(join(tmpdir(), `siegel-bench-profile-${phase}-`));
  profiles.set(phase, dir);
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

// Each phase starts on a settled file system: `sync` first, so the dirty pages of the copy made for it (or
// of the phase before) are not written back inside its time.
function measure(args, extraArgs = [], env = process.env) {
  execFileSync('sync');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs(), ...extraArgs, MEASURE, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env,
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

/**
 * `siegel verify <dir> --site SITE`, the CLI as a user runs it, in its own process (from `dir`, so no
 * project .env applies): wall time from spawn to exit, its peak RSS, and its counts line. Fails unless it
 * exits 0 with every one of the `pages` valid.
 */
async function verifyCli(dir, pages) {
  const extraArgs = await profiling('verify');
  execFileSync('sync');
  const { code, ms, peakMb, out, err } = await runCliWithPeak(['verify', dir, '--site', SITE], {
    cwd: dir,
    nodeArgs: [
      ...nodeArgs(),
      ...(process.env.BENCH_CLI_NODE_ARGS === undefined ? [] : cliNodeArgs()),
      ...extraArgs,
    ],
  });
  const counts = /^Siegel verify: .*$/m.exec(out)?.[0] ?? '';
  if (code !== 0 || !counts.startsWith(`Siegel verify: ${pages} valid, 0 invalid`))
    throw new Error(`siegel verify exited ${code}:\n${out.slice(-2000)}\n${err.slice(-2000)}`);
  return { ms, maxRssMb: Math.round(peakMb), counts };
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
  const sign = async (dir, phase) =>
    measure(
      ['sign', dir, cacheFile, bunker.url, bunker.apiToken, SITE],
      [...cliNodeArgs(), ...(await profiling(phase))],
      { ...SIEGEL_NODE_ENV, ...process.env },
    );

  const parse1 = await measure(['parse', build]);
  const run = {};
  const coldDir = await fresh('cold');
  if (PHASES.includes('cold')) run.cold = await sign(coldDir, 'cold');
  if (PHASES.includes('verify')) run.verify = await verifyCli(coldDir, PAGES);
  const cacheBytes = run.cold ? (await stat(cacheFile)).size : undefined;
  if (PHASES.includes('warm')) run.warm = await sign(await fresh('warm'), 'warm');
  if (PHASES.includes('one')) {
    const oneDir = await fresh('one');
    const changed = join(oneDir, paths[Math.floor(PAGES / 2)]);
    await writeFile(
      changed,
      (await readFile(changed, 'utf8')).replace('<article><h1>', '<article><h1>Geändert: '),
    );
    run.one = await sign(oneDir, 'one');
  }
  // The I/O floor: the files a signed run reads (each page, each asset once) and writes (each page, a verify
  // page and an event per page), with nothing computed — no parse, no hash, no signature.
  if (PHASES.includes('writes')) run.writes = await measure(['writes', await fresh('writes')]);
  const parse2 = await measure(['parse', build]);
  const parseMs = Math.min(parse1.ms, parse2.ms);
  const parseCpuMs = Math.min(parse1.cpuMs, parse2.cpuMs);

  const times = (r) =>
    `${(r.ms / 1000).toFixed(2).padStart(7)} s  ${(r.ms / parseMs).toFixed(2).padStart(5)}× parse  ${String(r.maxRssMb).padStart(4)} MB peak RSS${r.cpuMs === undefined ? '' : `  (CPU ${(r.cpuMs / 1000).toFixed(1)} s, ${(r.cpuMs / parseCpuMs).toFixed(2)}× the parse's)`}`;
  const os = await import('node:os');
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(
    `sign-site bench, ${PAGES} pages in ${root} (${fileSystemOf(root)}; ${process.version}, ${os.cpus().length} cores, load ${load})`,
  );
  console.log(
    `parse  ${(parseMs / 1000).toFixed(2).padStart(7)} s  (read + parse5.parse, one thread; runs: ${(parse1.ms / 1000).toFixed(2)} s, ${(parse2.ms / 1000).toFixed(2)} s; ${parse1.maxRssMb} MB)`,
  );
  const MEMORY = 250;
  const goals = [];
  const check = (name, met) => {
    if (!met) goals.push(name);
    return met ? 'met' : 'NOT MET';
  };
  const memory = (name) => check(`${name} memory`, run[name].maxRssMb <= MEMORY);
  if (run.cold)
    console.log(
      `cold   ${times(run.cold)}  goal ≤ 1.0× (aim 0.6×) ${check('cold', run.cold.ms <= parseMs)}, ≤ ${MEMORY} MB ${memory('cold')}  ${JSON.stringify(run.cold.summary)}; cache file ${(cacheBytes / 1e6).toFixed(1)} MB`,
    );
  const floor = run.writes?.ms;
  const overFloor = (name, r) =>
    floor === undefined
      ? ''
      : `  ${(r.ms / floor).toFixed(2)}× I/O floor, goal ≤ 1.5× ${check(`${name} ÷ I/O floor`, r.ms <= 1.5 * floor)}`;
  if (run.warm)
    console.log(
      `warm   ${times(run.warm)}${overFloor('warm', run.warm)}, ≤ ${MEMORY} MB ${memory('warm')}  ${JSON.stringify(run.warm.summary)}`,
    );
  if (run.one)
    console.log(
      `one    ${times(run.one)}, ≤ ${MEMORY} MB ${memory('one')}  ${JSON.stringify(run.one.summary)}`,
    );
  // The site manifest's cost within each signing run (issue 36): its time, the events it signed, its bytes.
  for (const name of ['cold', 'warm', 'one']) {
    const m = run[name]?.manifest;
    if (m)
      console.log(
        `manifest ${name.padEnd(4)} ${(m.ms / 1000).toFixed(2).padStart(5)} s  ${(m.ms / run[name].ms).toFixed(2)}× the run  ${m.events} event(s) signed, layout ${m.layout}, ${m.files} files: event ${m.eventBytes} bytes${m.blobBytes > 0 ? ` + blob ${(m.blobBytes / 1e6).toFixed(2)} MB` : ''}`,
      );
  }
  if (run.writes)
    console.log(
      `writes ${(run.writes.ms / 1000).toFixed(2).padStart(7)} s  ${(run.writes.ms / parseMs).toFixed(2).padStart(5)}× parse  (I/O floor: what a warm run reads — pages and ${run.writes.assets} assets, ${(run.writes.assetBytes / 1e6).toFixed(1)} MB — and writes, done the same way, nothing computed)`,
    );
  if (run.verify)
    console.log(
      `verify ${times(run.verify)}  goal ≤ 1.0× (aim 0.6×) ${check('verify', run.verify.ms <= parseMs)}, ≤ ${MEMORY} MB ${memory('verify')}  (siegel verify of the cold site, ${PAGES >= 64 ? Math.max(0, Math.min(4, os.availableParallelism() - 1)) : 0} parse worker(s): ${run.verify.counts.replace('Siegel verify: ', '')})`,
    );
  for (const phase of ALL_PHASES) {
    const dir = profiles.get(phase);
    if (dir) console.log(`where ${phase.padEnd(6)} ${describeProfile(await summarizeProfiles(dir))}`);
  }
  console.log(goals.length === 0 ? 'all goals met' : `GOALS NOT MET: ${goals.join(', ')}`);
} finally {
  await bunker.stop();
  await rm(root, { recursive: true, force: true });
  if (process.env.BENCH_PROFILE_KEEP === '1')
    for (const [phase, dir] of profiles) console.log(`profiles of ${phase} kept in ${dir}`);
  else for (const dir of profiles.values()) await rm(dir, { recursive: true, force: true });
}
