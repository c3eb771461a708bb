// Issue 34 §2: the files of an upload killed mid-write (kill -9 between its files and its record) are gone
// once its claim's lease has passed, not at the next hourly sweep. The sweep at start must leave them (the
// dead writer's claim is still leased, as a live upload's would be); before the fix they then stayed until
// ORPHAN_SWEEP_MS (1 h) later — five such orphans after one kill in a soak. Here: a writer killed between
// file and record (killed-write.mjs, on the server's stores), then the real server process started on the
// same data directory at once, with the default hourly sweep. The writer's claim lasts its CLAIM_LEASE_MS
// (15 s) past the kill, longer than the server takes to start on a loaded machine, so that the sweep at
// start finds it held.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { type RunningServer, startServer } from './server-process.js';

// Timeouts (docs/testing.md): a killed writer, then one lease (15 s) while the server starts: 17 s among
// parallel files
vi.setConfig({ testTimeout: 60_000 });

const KILLED_WRITE = fileURLToPath(new URL('./killed-write.mjs', import.meta.url));
/** The dead writer's lease: long enough that the server has started (and swept once) before it ends. */
const LEASE_MS = 15_000;

/** The stored files' keys under `dataDir` (`documents/…`, `events/…/…`). */
async function storedKeys(dataDir: string): Promise<string[]> {
  const entries = await readdir(join(dataDir, 'files'), { recursive: true, withFileTypes: true }).catch(
    () => [],
  );
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(join(dataDir, 'files').length + 1))
    .sort();
}

describe('orphans of an upload killed mid-write (real server process)', () => {
  let bunker: RunningBunker | undefined;
  let server: RunningServer | undefined;
  let dataDir: string | undefined;
  beforeAll(async () => {
    bunker = await useBunker();
  });
  afterAll(async () => {
    await server?.stop();
    await bunker?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('are gone once the lease has passed, without waiting for the hourly sweep', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'siegel-orphans-'));
    const text = '---\nauthor: Ann Lee\ntitle: Killed mid-write\n---\n# Killed mid-write\n';
    const hash = createHash('sha256').update(text).digest('hex');
    const child = spawn(process.execPath, [KILLED_WRITE], {
      env: {
        PATH: process.env.PATH,
        SIEGEL_DATA_DIR: dataDir,
        CLAIM_LEASE_MS: String(LEASE_MS),
        KILLED_WRITE_TEXT: text,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const signal = await new Promise((resolve) => child.once('exit', (_code, killedBy) => resolve(killedBy)));
    const killedAt = Date.now();
    expect(signal, output).toBe('SIGKILL');
    const orphans = [`documents/${hash}.md`, `events/${hash}/index.html`, `events/${hash}/index.json`];
    expect(await storedKeys(dataDir)).toEqual(orphans);

    server = await startServer({ bunker: bunker as RunningBunker, dataDir });
    // The sweep at start leaves them: the dead writer's claim is still leased (checked only when the start
    // took well under the lease, so that the claim cannot have ended yet).
    if (Date.now() < killedAt + LEASE_MS - 2_000) expect(await storedKeys(dataDir)).toEqual(orphans);
    // Once the claim has ended, the server looks at that hash again and removes its files.
    const dir = dataDir;
    await eventually(async () => (await storedKeys(dir)).length === 0, LEASE_MS + 10_000, 100);
    const told = /Removed 3 stored file\(s\) without a record: (.*)/.exec(server.output())?.[1] ?? '';
    expect(told.split(', ').sort()).toEqual(orphans);
    // Nothing half-written is reported either: the record was never written.
    const verify = await fetch(`${server.url}/api/verify?hash=${hash}`);
    expect(verify.status).toBe(404);
  });
});
