// The install step of `npm run demo` on a fresh clone: `npm ci`, told as progress.
//
// On a machine whose own Node is older than the one this repository needs (Debian's Node 20), `npm ci`
// prints one `EBADENGINE` block per package that wants Node ≥ 22 — 53 blocks, about 265 lines — and then
// nothing for about three minutes, which reads as a failure. Those warnings do not apply here: the `node`
// devDependency installs Node 24, and every npm script (build, tests, demo) runs on it. So this step says
// what it does and how long it takes, leaves out exactly those blocks (every other line of npm's output
// passes), says once why, and reports the time now and then. Plain Node 20 JavaScript: it runs before the
// repository's Node is installed.
import { spawn } from 'node:child_process';

/** One line of npm's engine warnings: `npm warn EBADENGINE …` (npm 9–11; `npm WARN` before). */
const ENGINE_WARNING = /^npm warn EBADENGINE\b/i;

/**
 * The lines of npm's output without its `EBADENGINE` warnings, and the packages those named (npm may warn
 * twice for one: a linked workspace and its folder).
 *
 * @example
 * withoutEngineWarnings(['npm warn EBADENGINE Unsupported engine {', "npm warn EBADENGINE   package: 'a@1.0.0',", 'added 3 packages in 2s'])
 * // { lines: ['added 3 packages in 2s'], packages: ['a@1.0.0'] }
 */
export function withoutEngineWarnings(lines) {
  const kept = lines.filter((line) => !ENGINE_WARNING.test(line));
  const packages = lines
    .map((line) => /^npm warn EBADENGINE\s+package: '?([^',]*)'?,?$/i.exec(line)?.[1])
    .filter((name) => name !== undefined);
  return { lines: kept, packages };
}

/** `95 s` → `1 min 35 s`. */
function duration(seconds) {
  const whole = Math.round(seconds);
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/**
 * Run `npm ci` in `root`, telling what happens through `say`: a first line with what and how long, a line
 * every `everyMs` while it runs, npm's own lines except its engine warnings (and one line saying why those
 * are left out), and the time it took.
 *
 * @example
 * await installDependencies(ROOT, (message) => console.log(`[demo] ${message}`));
 * @throws {Error} when `npm ci` fails; its whole output has been printed by then.
 */
export function installDependencies(
  root,
  say,
  { everyMs = 30_000, npmArgs = ['ci', '--no-audit', '--no-fund'] } = {},
) {
  const started = Date.now();
  say(`installing the dependencies (npm ${npmArgs[0]}: about 3 minutes on a fresh clone, once)…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const child = spawn(npm, npmArgs, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
  });
  const warnedFor = new Set();
  const pass = (stream, target) => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      const { lines: kept, packages } = withoutEngineWarnings(lines);
      for (const name of packages) warnedFor.add(name);
      for (const line of kept) target.write(`${line}\n`);
    });
    stream.on('end', () => {
      if (rest && !ENGINE_WARNING.test(rest)) target.write(`${rest}\n`);
    });
  };
  pass(child.stdout, process.stdout);
  pass(child.stderr, process.stderr);
  const ticker = setInterval(
    () => say(`still installing (${duration((Date.now() - started) / 1000)})…`),
    everyMs,
  );
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearInterval(ticker);
      reject(error);
    });
    child.on('close', (code) => {
      clearInterval(ticker);
      if (warnedFor.size > 0) {
        say(
          `left out npm's engine warnings for ${warnedFor.size} package(s): they are about this machine's Node ` +
            `${process.version}, and every script here runs on the Node 24 the install just put in node_modules`,
        );
      }
      if (code !== 0) return reject(new Error(`\`npm ${npmArgs.join(' ')}\` failed (exit ${code})`));
      say(`installed in ${duration((Date.now() - started) / 1000)}`);
      resolve();
    });
  });
}
