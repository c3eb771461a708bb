import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signSite, verifySite } from '../src/index.js';
import { VERIFY_MARKER } from '../src/verify/verify-output.js';
import { CountingSigner, collectingLogger, KEY_A, SITE, useFixtureProjects } from './support/site-fixture.js';

const { createProject } = useFixtureProjects();

async function signed() {
  const project = await createProject();
  const signer = new CountingSigner(KEY_A);
  const { logger } = collectingLogger();
  const run = () =>
    signSite(project.dist, { site: SITE, signer, cacheFile: project.cacheFile, logger, progress: false });
  await run();
  const verifyDir = join(project.dist, 'verify');
  // The page events' files (the site manifest's verify/manifest.json beside them is not one).
  const ids = (await readdir(verifyDir))
    .filter((name) => /^[0-9a-f]{64}\.json$/.test(name))
    .map((name) => name.slice(0, -5));
  return { ...project, run, signer, verifyDir, ids };
}

describe('verify files written in place under a marker', () => {
  it('a finished run leaves no marker', async () => {
    const { verifyDir, ids } = await signed();
    expect(ids).toHaveLength(4);
    expect(await readdir(verifyDir)).not.toContain(VERIFY_MARKER);
  });

  it('after a killed run (marker left, an event file half-written) the next run rewrites the verify files', async () => {
    const { dist, verifyDir, ids, run, signer } = await signed();
    const [id] = ids as [string];
    const eventFile = join(verifyDir, `${id}.json`);
    const complete = await readFile(eventFile, 'utf8');
    // What a SIGKILL mid-write leaves: the marker, and a torn event file next to its verify page.
    await writeFile(join(verifyDir, VERIFY_MARKER), '');
    await writeFile(eventFile, complete.slice(0, 40));
    await writeFile(join(verifyDir, id, 'index.html'), '<!doctype html><title>half');
    expect((await verifySite(dist)).ok).toBe(false);
    const calls = signer.calls;
    const rerun = await run();
    expect(rerun).toMatchObject({ signed: 0, unchanged: 4, failed: 0 });
    expect(signer.calls).toBe(calls);
    expect(await readFile(eventFile, 'utf8')).toBe(complete);
    expect(await readFile(join(verifyDir, id, 'index.html'), 'utf8')).toContain(id);
    expect(await readdir(verifyDir)).not.toContain(VERIFY_MARKER);
    expect((await verifySite(dist)).ok).toBe(true);
  });

  it('without the marker, complete verify files are trusted and not rewritten', async () => {
    const { verifyDir, ids, run } = await signed();
    const [id] = ids as [string];
    const page = join(verifyDir, id, 'index.html');
    await writeFile(page, 'kept as it is');
    await run();
    expect(await readFile(page, 'utf8')).toBe('kept as it is');
  });

  it('a verify write that fails keeps the marker (the file may be partial)', async () => {
    const { verifyDir, ids, run } = await signed();
    const [id] = ids as [string];
    // The next run must write this event file (no marker, but it is missing) and cannot: a directory is in the way.
    await rm(join(verifyDir, `${id}.json`));
    await rm(join(verifyDir, id, 'index.html'));
    await mkdir(join(verifyDir, id, 'index.html'));
    const summary = await run();
    expect(summary.failed).toBe(1);
    expect(await readdir(verifyDir)).toContain(VERIFY_MARKER);
  });
});
