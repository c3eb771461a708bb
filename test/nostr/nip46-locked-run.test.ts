// Issue 22: with a locked key behind a NIP-46 signer, `siegel sign` exited 1 but had already rewritten the
// blocks of unchanged pages and the cache (new relay hints), and advised to re-allow the client or delete
// its key file. Now a run that cannot sign changes no byte of the site or the cache — the NIP-46 signer
// proves it signs before a page is written without a new signature — and the advice is to unlock the key.
// Real processes: siegel-bunker as the NIP-46 signer, two relay processes, the `siegel` CLI.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSiegel, snapshotTree } from '../site/support.js';
import { callBunker, type RunningBunker, runBunkerCli, startBunker } from '../support/bunker-process.js';
import { type RunningRelay, startRelay } from '../support/relay-process.js';

const PAGES = 12;
const SITE = 'https://locked.example.com';
const passphrase = 'locked run passphrase';

let relayA: RunningRelay;
let relayB: RunningRelay;
let bunker: RunningBunker;
let work: string;

beforeAll(async () => {
  [relayA, relayB] = await Promise.all([startRelay(), startRelay()]);
  work = await mkdtemp(join(tmpdir(), 'siegel-nip46-locked-'));
  const dataDir = join(work, 'bunker');
  const added = await runBunkerCli(['keys', 'add', 'default', '--generate', '--data-dir', dataDir], {
    BUNKER_PASSPHRASE: passphrase,
  });
  expect(added.code, added.stderr).toBe(0);
  bunker = await startBunker({
    dataDir,
    env: { BUNKER_PASSPHRASE: passphrase },
    args: ['--relay', relayA.url],
  });
});

afterAll(async () => {
  await bunker?.stop();
  await Promise.all([relayA?.stop(), relayB?.stop()]);
  if (work) await rm(work, { recursive: true, force: true });
});

async function lock(locked: boolean): Promise<void> {
  const response = await callBunker(bunker.url, 'POST', `/api/keys/default/${locked ? 'lock' : 'unlock'}`, {
    token: bunker.adminToken,
    ...(locked ? {} : { body: { passphrase } }),
  });
  expect(response.status).toBe(200);
}

describe('siegel sign through a NIP-46 signer whose key is locked', () => {
  it('changes no byte of the site or the cache, says to unlock the key, and signs once it is unlocked', async () => {
    const minted = await callBunker(bunker.url, 'POST', '/api/nip46/uri', {
      token: bunker.adminToken,
      body: { key: 'default' },
    });
    expect(minted.status).toBe(201);
    const { uri } = (await minted.json()) as { uri: string };
    const project = join(work, 'site');
    const dist = join(project, 'dist');
    await mkdir(dist, { recursive: true });
    for (let i = 0; i < PAGES; i++)
      await writeFile(
        join(dist, `p${i}.html`),
        `<!doctype html><html><head><title>P${i}</title></head><body><main><p>Page ${i}.</p></main></body></html>`,
      );
    const env = (relays: string[]) => ({ BUNKER_URL: uri, SITE_URL: SITE, SIEGEL_RELAYS: relays.join(',') });
    const first = await runSiegel(['sign', 'dist'], { cwd: project, env: env([relayA.url]) });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain(`${PAGES} signed`);

    // The key is locked; the relays change (every unchanged page's block would be rewritten) and one page
    // changes (it needs a signature).
    await lock(true);
    await writeFile(
      join(dist, 'p0.html'),
      (await readFile(join(dist, 'p0.html'), 'utf8')).replace('Page 0.', 'Page zero.'),
    );
    const site = await snapshotTree(dist);
    const cache = await readFile(join(project, '.sign-cache.json'));
    const locked = await runSiegel(['sign', 'dist'], { cwd: project, env: env([relayA.url, relayB.url]) });
    expect(locked.code).toBe(1);
    expect(locked.stderr.split('\n')).toContain('Key ist gesperrt');
    expect(locked.stderr).toContain('the key behind the signer is locked: unlock it in the signer');
    expect(locked.stderr).not.toContain('delete');
    expect(await snapshotTree(dist)).toEqual(site);
    expect(await readFile(join(project, '.sign-cache.json'))).toEqual(cache);

    // Unlocked: the same run signs the changed page and rewrites the others' blocks.
    await lock(false);
    const again = await runSiegel(['sign', 'dist'], { cwd: project, env: env([relayA.url, relayB.url]) });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`1 signed, ${PAGES - 1} unchanged`);
    expect(await readFile(join(dist, 'p1.html'), 'utf8')).not.toBe(site.get('p1.html')?.toString('utf8'));
  });
});
