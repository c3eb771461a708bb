// Experiment (not a test): the I/O floor of a warm run (per page: read it, write it atomically, mkdir
// verify/{id}, write verify/{id}/index.html and verify/{id}.json in place) with the async threadpool path of
// atomic-write.ts against synchronous fs calls, side by side, each variant in its own process on a fresh copy.
//   npm run build && node bench/sign-site/floor-sync.mjs          # BENCH_PAGES=3000 by default, 2 rounds
// Findings (2 vCPUs, Node 24): on tmpfs the sync calls cost ~70 % less; on the ext4 disk it depends on the
// file system's state: ~30 % less while creating a file is cheap, but 25–40 % MORE after many deletes (ext4
// then scans recently deleted inodes on every create, in kernel time; the threadpool spreads that over both
// cores, sync calls cannot). A build that cleans its output folder right before signing is in that state,
// so core keeps the async calls.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'parse5';
import { generateSite } from './generate-site.mjs';

const SELF = fileURLToPath(import.meta.url);
const [variant, dir] = process.argv.slice(2);

async function listHtml(root) {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.html'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const verifyPage = 'v'.repeat(4_000);
const event = 'e'.repeat(900);
let counter = 0;
const temp = (file) => `${file}.${(++counter).toString(16).padStart(12, '0')}.tmp`;

function writeOpen(path, data) {
  const fd = openSync(path, 'w');
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
  } finally {
    closeSync(fd);
  }
}

async function child() {
  const files = await listHtml(dir);
  const start = performance.now();
  if (variant === 'parse') {
    for (const file of files) parse(await readFile(file, 'utf8'));
  } else if (variant === 'async') {
    const { mkdirFast, readFileFast, writeFileAtomic, writeFileFast } = await import(
      '../../packages/core/dist/atomic-write.js'
    );
    let active = [];
    for (const [index, file] of files.entries()) {
      const bytes = await readFileFast(file);
      const id = String(index).padStart(64, '0');
      active.push(
        (async () => {
          await writeFileAtomic(file, bytes);
          await mkdirFast(join(dir, 'verify', id));
          await Promise.all([
            writeFileFast(join(dir, 'verify', id, 'index.html'), verifyPage),
            writeFileFast(join(dir, 'verify', `${id}.json`), event),
          ]);
        })(),
      );
      if (active.length >= 16) {
        await Promise.all(active);
        active = [];
      }
    }
    await Promise.all(active);
  } else if (variant === 'sync' || variant === 'sync-open' || variant === 'async-read') {
    // async-read: reads through the threadpool (read-ahead 8, as sign-site), writes synchronous.
    const { readFileFast } = await import('../../packages/core/dist/atomic-write.js');
    const write = variant === 'sync-open' ? writeOpen : writeFileSync;
    const reads = new Map();
    const ahead = variant === 'async-read' ? 8 : 0;
    for (let i = 0; i < Math.min(ahead, files.length); i++) reads.set(i, readFileFast(files[i]));
    mkdirSync(join(dir, 'verify'), { recursive: true });
    for (const [index, file] of files.entries()) {
      let bytes;
      if (ahead) {
        if (files[index + ahead]) reads.set(index + ahead, readFileFast(files[index + ahead]));
        bytes = await reads.get(index);
        reads.delete(index);
      } else {
        bytes = readFileSync(file);
      }
      const id = String(index).padStart(64, '0');
      const t = temp(file);
      write(t, bytes);
      renameSync(t, file);
      mkdirSync(join(dir, 'verify', id));
      write(join(dir, 'verify', id, 'index.html'), verifyPage);
      write(join(dir, 'verify', `${id}.json`), event);
    }
  } else {
    throw new Error(`unknown variant \`${variant}\``);
  }
  process.stdout.write(`${JSON.stringify({ variant, ms: performance.now() - start })}\n`);
}

function run(args) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [SELF, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (chunk) => {
      out += chunk;
    });
    c.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim())) : reject(new Error(`${args[0]} ${code}`)),
    );
  });
}

async function parent() {
  const pages = Number(process.env.BENCH_PAGES ?? 3_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const variants = (process.env.BENCH_VARIANTS ?? 'async,sync,sync-open,async-read').split(',');
  const root = await mkdtemp(join(process.env.BENCH_DIR ?? tmpdir(), 'siegel-floor-'));
  try {
    const build = join(root, 'build');
    await generateSite(build, pages, 3);
    const times = new Map();
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 ? ['parse', ...variants].reverse() : ['parse', ...variants]) {
        const copy = join(root, `${name}-${round}`);
        if (name === 'parse') {
          const r = await run(['parse', build]);
          times.set('parse', [...(times.get('parse') ?? []), r.ms]);
          continue;
        }
        await cp(build, copy, { recursive: true });
        const r = await run([name, copy]);
        times.set(name, [...(times.get(name) ?? []), r.ms]);
        // No rm between variants: ext4 scans recently deleted inodes when it allocates new ones.
      }
    }
    const os = await import('node:os');
    const parseMs = Math.min(...times.get('parse'));
    console.log(
      `floor experiment, ${pages} pages, ${rounds} rounds (${process.version}, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    );
    for (const [name, list] of times) {
      const best = Math.min(...list);
      console.log(
        `${name.padEnd(10)} best ${(best / 1000).toFixed(2)} s  ${(best / parseMs).toFixed(2)}× parse  runs ${list.map((ms) => (ms / 1000).toFixed(2)).join(', ')}`,
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await (variant ? child() : parent());
