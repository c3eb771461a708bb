// Issue 13, acceptance 1: a site built by an example (Eleventy) with two relays configured publishes every
// page event to both (queried back by id). With one relay down the build still succeeds, the summary says
// so, the outbox beside the cache holds those events, and a later `siegel publish` delivers them once the
// relay is back on its address. Real parts: the bunker process, two relay processes, the Eleventy build
// and the built `siegel` CLI.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADAPTERS, copyExample, type ExampleProject } from '../integrations/support/example-project.js';
import { checkPages, runSiegelCli, signatureProblems } from '../integrations/support/signed-output.js';
import { bunkerEnv, type RunningBunker, startBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';

// Timeouts (docs/testing.md): site runs publishing to relays: 9 s alone
vi.setConfig({ testTimeout: 45_000 });

const eleventy = ADAPTERS.find((adapter) => adapter.tool === 'eleventy');
if (!eleventy) throw new Error('no eleventy adapter');

let bunker: RunningBunker;
let relayA: RunningRelay;
let relayB: RunningRelay;
let portB: number;
let project: ExampleProject;

beforeAll(async () => {
  portB = await freePort();
  [bunker, relayA, relayB] = await Promise.all([startBunker(), startRelay(), startRelay({ port: portB })]);
  project = await copyExample(eleventy as NonNullable<typeof eleventy>, 'publish');
  await project.configure({ relays: [relayA.url, relayB.url] });
  await project.writeEnv(bunkerEnv(bunker));
});

afterAll(async () => {
  await project?.remove();
  await Promise.all([bunker?.stop(), relayA?.stop(), relayB?.stop()]);
});

/** Every page's event, checked as signed by the bunker's key. */
async function pageEvents(): Promise<string[]> {
  const pages = (await checkPages(project.outDir)).filter((page) => page.hasMain);
  expect(pages.length).toBeGreaterThan(3);
  expect(pages.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
  return pages.map((page) => page.event?.id as string).sort();
}

/** The id of the site manifest the build wrote (`verify/manifest.json`): published with the page events. */
async function manifestId(): Promise<string> {
  const manifest = JSON.parse(await readFile(join(project.outDir, 'verify', 'manifest.json'), 'utf8')) as {
    id: string;
  };
  return manifest.id;
}

const idsOn = async (url: string, ids: string[]) =>
  ((await queryRelay(url, { ids })) as Array<{ id: string }>).map((event) => event.id).sort();

const outboxFile = () => join(project.dir, '.sign-outbox.json');

describe('publishing a signed site to relays (issue 13, acceptance 1)', () => {
  it('sends every page event to both relays; an unchanged rebuild sends nothing', async () => {
    const result = await project.build();
    expect(result.code, result.output).toBe(0);
    const ids = [...(await pageEvents()), await manifestId()].sort();
    const n = ids.length;
    expect(result.output).toContain(
      `Siegel: ${n} of ${n} events published (${relayA.url}: ${n}, ${relayB.url}: ${n})`,
    );
    expect(await idsOn(relayA.url, ids)).toEqual(ids);
    expect(await idsOn(relayB.url, ids)).toEqual(ids);
    expect(existsSync(outboxFile())).toBe(false);

    const again = await project.build();
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/Siegel: 0 signed, \d+ unchanged/);
    expect(again.output).not.toContain('published');
  });

  it('with one relay down the build succeeds, says so, keeps the events in the outbox; `siegel publish` delivers them', async () => {
    await relayB.stop();
    // A fresh cache: every page is signed again, in a later second than the first build's events (new
    // events: created_at counts seconds). Usually that second has passed already.
    const before = await pageEvents();
    const lastSigned = Math.max(
      ...(await checkPages(project.outDir)).flatMap((page) => (page.event ? [page.event.created_at] : [])),
    );
    await rm(join(project.dir, '.sign-cache.json'));
    await eventually(() => Math.floor(Date.now() / 1000) > lastSigned, 5000, 50);
    const result = await project.build();
    expect(result.code, result.output).toBe(0);
    const ids = [...(await pageEvents()), await manifestId()].sort();
    expect(ids.filter((id) => before.includes(id))).toEqual([]);
    const n = ids.length;
    expect(result.output).toContain(
      `Siegel: 0 of ${n} events published (${relayA.url}: ${n}, ${relayB.url}: 0 — cannot connect); ${n} waiting in .sign-outbox.json`,
    );
    expect(await idsOn(relayA.url, ids)).toEqual(ids);

    const outbox = JSON.parse(await readFile(outboxFile(), 'utf8')) as {
      events: Array<{ event: { id: string }; relays: string[]; delivered: string[]; attempts: number }>;
    };
    expect(outbox.events.map((entry) => entry.event.id).sort()).toEqual(ids);
    for (const entry of outbox.events) {
      expect(entry.relays).toEqual([relayB.url]);
      expect(entry.delivered).toEqual([relayA.url]);
      expect(entry.attempts).toBe(1);
    }

    // Still down: `siegel publish` says so, keeps the outbox; every event reached some relay (exit 0).
    const down = await runSiegelCli(['publish', project.adapter.outDir], project.dir);
    expect(down.code, down.output).toBe(0);
    expect(down.output).toContain(`${relayB.url}: 0 — cannot connect); ${n} waiting in .sign-outbox.json`);
    expect(existsSync(outboxFile())).toBe(true);

    // The relay is back on its address (a new process, empty): `siegel publish` delivers the outbox.
    relayB = await startRelay({ port: portB });
    const published = await runSiegelCli(['publish', project.adapter.outDir], project.dir);
    expect(published.code, published.output).toBe(0);
    expect(published.output).toContain(`Siegel: ${n} of ${n} events published (${relayB.url}: ${n})`);
    expect(await idsOn(relayB.url, ids)).toEqual(ids);
    expect(existsSync(outboxFile())).toBe(false);
  });

  it('`siegel publish --all` sends every verify/*.json event to a new relay; an event no relay takes exits 1', async () => {
    const [fresh, refusing] = await Promise.all([startRelay(), startRelay({ refuse: 'closed for now' })]);
    try {
      const ids = await pageEvents();
      const all = await runSiegelCli(
        ['publish', project.adapter.outDir, '--all', '--relay', fresh.url],
        project.dir,
      );
      expect(all.code, all.output).toBe(0);
      expect(await idsOn(fresh.url, ids)).toEqual(ids);

      const refused = await runSiegelCli(
        ['publish', project.adapter.outDir, '--all', '--relay', refusing.url],
        project.dir,
      );
      expect(refused.code, refused.output).toBe(1);
      expect(refused.output).toContain(`${refusing.url}: 0 — refused: blocked: closed for now)`);
      expect(existsSync(outboxFile())).toBe(true);
    } finally {
      await Promise.all([fresh.stop(), refusing.stop()]);
      await rm(outboxFile(), { force: true });
    }
  });
});
