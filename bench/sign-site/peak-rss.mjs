// Peak RSS of this process's memory (all its threads): VmHWM. Not getrusage's maxRSS, which Linux carries
// over from the parent across fork + exec, so it reports the spawning process's size when that is larger.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Peak resident memory of this process so far, in KiB. */
export function peakRssKib() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
  } catch {
    return process.resourceUsage().maxRSS;
  }
}

const CLI = fileURLToPath(new URL('../../packages/core/bin/siegel.js', import.meta.url));
const REPORT_PEAK = fileURLToPath(new URL('./report-peak-rss.mjs', import.meta.url));

/**
 * Run the `siegel` CLI as a user does, in its own process, with report-peak-rss.mjs preloaded: resolves
 * with its exit code, wall time from spawn to exit, its peak RSS in MiB (NaN when it printed none), and
 * what it wrote. `nodeArgs` go before the preload (profiling flags, say). Never rejects on an exit code.
 */
export function runCliWithPeak(args, { cwd, env = {}, nodeArgs = [] }) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, '--import', REPORT_PEAK, CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const peak = /PEAK_RSS_KB=(\d+)/.exec(err);
      resolve({
        code,
        ms: performance.now() - start,
        peakMb: peak ? Number(peak[1]) / 1024 : Number.NaN,
        out,
        err,
      });
    });
  });
}
