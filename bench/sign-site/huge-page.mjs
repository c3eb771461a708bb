import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePage } from './generate-site.mjs';
import { runCliWithPeak } from './peak-rss.mjs';

const _CLI = fileURLToPath(new URL('../../packages/core/bin/siegel.js', import.meta.url));
const sizes = (process.env.BENCH_MB ?? '54,32').split(',').map(Number);
const base = process.env.BENCH_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());

/** One page of about `mb` million bytes: the generator's articles, one after another, in one <main>. */
function hugePage(mb) {
  const parts = [];
  let size = 0;
  for (let index = 0; size < mb * 1e6; index++) {
    const page = generatePage(index, 3);
    const main = page.slice(page.indexOf('<article>'), page.indexOf('</main>'));
    parts.push(main);
    size += main.length;
  }
  return `<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8"><title>Huge</title></head><body><main>${parts.join('\n')}</main></body></html>\n`;
}

async function run(args, cwd, env) {
  const { code, ms, peakMb, out } = await runCliWithPeak(args, { cwd, env });
  return { code, seconds: ms / 1000, peakMb, out: out.trim().split('\n').at(-1) };
}

const root = await mkdtemp(join(base, 'siegel-huge-page-'));
console.log(`file system: ${base}`);
try {
  for (const mb of sizes) {
    const dir = join(root, `site-${mb}`);
    await mkdir(dir, { recursive: true });
    const html = hugePage(mb);
    await writeFile(join(dir, 'index.html'), html);
    const bytes = Buffer.byteLength(html);
    const env = {
      SIEGEL_SECRET_KEY: randomBytes(32).toString('hex'),
      SIEGEL_MAX_PAGE_BYTES: String(bytes + 1024 * 1024),
    };
    const sign = await run(
      ['sign', dir, '--site', 'https://example.com', '--cache', join(root, `cache-${mb}.json`)],
      root,
      env,
    );
    const verify = await run(['verify', dir, '--max-page-bytes', String(bytes + 1024 * 1024)], root, {});
    // A figure of a run that failed would measure the failure.
    for (const [name, result] of Object.entries({ sign, verify }))
      if (result.code !== 0) throw new Error(`siegel ${name} exited ${result.code}: ${result.out}`);
    console.log(JSON.stringify({ mb: bytes / 1e6, sign, verify }));
    console.log(
      `${(bytes / 1e6).toFixed(1)} MB page: sign ${sign.seconds.toFixed(1)} s, peak ${sign.peakMb.toFixed(0)} MB (${(sign.peakMb / (bytes / 2 ** 20)).toFixed(1)}× the page); verify ${verify.seconds.toFixed(1)} s, peak ${verify.peakMb.toFixed(0)} MB`,
    );
    await rm(dir, { recursive: true, force: true });
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
