// Every event a signer returns is checked once, in the signing run, against its template — built-in and
// custom signers alike (issue 21: a custom Signer passed to signSite was not checked at all, and the check
// was written twice, in the HTTP and the NIP-46 signer).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { verifyEvent } from 'nostr-tools/pure';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createPageEvent,
  type EventTemplate,
  HttpBunkerSigner,
  LocalKeySigner,
  type NostrEvent,
  NSITE_NAMED_KIND,
  PAGE_EVENT_KIND,
  type Signer,
  signSite,
} from '../src/index.js';
import { loadSigningEngine } from '../src/nostr/crypto.js';
import { checkSignedEvent, checkSignedEvents, pickSample } from '../src/signer/check-events.js';
import {
  collectingLogger,
  KEY_A,
  KEY_B,
  readPages,
  SITE,
  useFixtureProjects,
} from './support/site-fixture.js';
import { startTinyBunker, type TinyBunker } from './support/tiny-bunker.js';

const { createProject } = useFixtureProjects();
const local = new LocalKeySigner(KEY_A);

function templates(count: number): EventTemplate[] {
  return Array.from({ length: count }, (_, i) =>
    createPageEvent({
      hash: i.toString(16).padStart(64, '0'),
      url: `${SITE}/${i}/`,
      createdAt: 1_767_225_600,
    }),
  );
}

/** Change one field of a signed event, as a faulty or hostile signer might. */
const TAMPERS: Record<string, (event: NostrEvent, other: NostrEvent) => NostrEvent> = {
  kind: (event) => ({ ...event, kind: 1 }),
  tags: (event) => ({
    ...event,
    tags: event.tags.map((tag) => (tag[0] === 'url' ? ['url', `${SITE}/elsewhere/`] : tag)),
  }),
  content: (event) => ({ ...event, content: `${event.content} (edited)` }),
  created_at: (event) => ({ ...event, created_at: event.created_at + 1 }),
  // Another key's valid signature of the same template: right id and signature, wrong key.
  pubkey: (_event, other) => other,
  id: (event) => ({ ...event, id: event.id.replace(/^./, event.id[0] === 'a' ? 'b' : 'a') }),
  sig: (event) => ({ ...event, sig: event.sig.replace(/^./, event.sig[0] === 'a' ? 'b' : 'a') }),
  shape: (event) => ({ ...event, tags: 'x' }) as unknown as NostrEvent,
};

describe('checkSignedEvent', () => {
  it('accepts the template signed by the run key and refuses a change of any one field', async () => {
    const engine = await loadSigningEngine();
    const pubkey = await local.getPublicKey();
    const [template] = templates(1) as [EventTemplate];
    const [event] = (await local.signEvents([template])) as [NostrEvent];
    const [other] = (await new LocalKeySigner(KEY_B).signEvents([template])) as [NostrEvent];
    expect(checkSignedEvent(template, event, { pubkey, engine, verifySignature: true })).toBeUndefined();
    for (const [field, tamper] of Object.entries(TAMPERS)) {
      const problem = checkSignedEvent(template, tamper(event, other), {
        pubkey,
        engine,
        verifySignature: true,
      });
      expect(problem, field).toBeTypeOf('string');
    }
  });

  it('verifies signatures at the sampled positions only; every other field of every event always', async () => {
    const engine = await loadSigningEngine();
    const pubkey = await local.getPublicKey();
    const batch = templates(100);
    const events = await local.signEvents(batch);
    const forged = events.map((event, i) => (i === 57 ? TAMPERS.sig!(event, event) : event));
    const picks: Array<[number, number]> = [];
    const check = (indexes: number[]) =>
      checkSignedEvents(batch, forged, {
        pubkey,
        engine,
        verifySignatures: 4,
        pickSample: (length, count) => {
          picks.push([length, count]);
          return indexes;
        },
      });
    const caught = check([0, 12, 57, 99]);
    expect(caught[57]).toBeInstanceOf(Error);
    expect((caught[57] as Error).message).toMatch(/Schnorr signature does not verify/);
    expect(caught.filter((result) => result instanceof Error)).toHaveLength(1);
    expect(picks).toEqual([[100, 4]]);
    // A sample that misses it lets the event through (that is what sampling means)…
    const missed = check([0, 12, 58, 99]);
    expect(verifyEvent({ ...(missed[57] as NostrEvent) })).toBe(false);
    // …but a changed field is caught wherever it is.
    const edited = events.map((event, i) => (i === 83 ? TAMPERS.content!(event, event) : event));
    const result = checkSignedEvents(batch, edited, {
      pubkey,
      engine,
      verifySignatures: 4,
      pickSample: () => [0],
    });
    expect((result[83] as Error).message).toMatch(/`content` differs/);
  });

  it('draws the sample at random positions, not always the first', () => {
    const seen = new Set<number>();
    for (let run = 0; run < 50; run++) {
      const sample = pickSample(500, 16);
      expect(new Set(sample).size).toBe(16);
      for (const i of sample) {
        expect(Number.isInteger(i) && i >= 0 && i < 500).toBe(true);
        seen.add(i);
      }
    }
    // 800 draws over 500 positions: far more than the first few are ever picked.
    expect(seen.size).toBeGreaterThan(300);
    expect(pickSample(5, 16)).toEqual([0, 1, 2, 3, 4]);
  });
});

/** A custom signer (no built-in class) that changes one field of the event for one URL. */
class TamperingSigner implements Signer {
  constructor(
    readonly field: string,
    readonly target: string,
  ) {}
  getPublicKey(): Promise<string> {
    return local.getPublicKey();
  }
  async signEvents(batch: EventTemplate[]): Promise<NostrEvent[]> {
    const events = await local.signEvents(batch);
    const others = await new LocalKeySigner(KEY_B).signEvents(batch);
    return events.map((event, i) =>
      event.tags.some((tag) => tag[0] === 'url' && tag[1] === this.target)
        ? (TAMPERS[this.field] as (e: NostrEvent, o: NostrEvent) => NostrEvent)(
            event,
            others[i] as NostrEvent,
          )
        : event,
    );
  }
}

describe('signSite checks every signer’s events', () => {
  let bunker: TinyBunker | undefined;
  afterEach(async () => {
    await bunker?.close();
    bunker = undefined;
  });

  it('a custom signer whose event differs from its template in any one field fails that page and writes nothing for it', async () => {
    for (const field of Object.keys(TAMPERS)) {
      const project = await createProject();
      const before = await readPages(project.dist, ['about.html', 'index.html']);
      const { logger, info } = collectingLogger();
      const summary = await signSite(project.dist, {
        site: SITE,
        signer: new TamperingSigner(field, `${SITE}/about.html`),
        cacheFile: project.cacheFile,
        logger,
        progress: false,
      });
      expect(summary.failed, field).toBe(1);
      expect(summary.signed, field).toBe(3);
      const failed = summary.pages.find((page) => page.path === 'about.html');
      expect(failed?.outcome, field).toBe('failed');
      expect(failed?.error, field).toMatch(/does not match what was asked/);
      const after = await readPages(project.dist, ['about.html', 'index.html']);
      expect(after['about.html'], field).toBe(before['about.html']);
      expect(after['index.html'], field).not.toBe(before['index.html']);
      const cache = JSON.parse(await readFile(project.cacheFile, 'utf8')) as {
        pages: Record<string, unknown>;
      };
      expect(Object.keys(cache.pages), field).not.toContain('about.html');
      expect(info.join('\n'), field).toContain('failed   about.html');
    }
  });

  it('the HTTP bunker’s forged signature fails its page in the run (the signer no longer checks on its own)', async () => {
    bunker = await startTinyBunker();
    bunker.state.tamperAt = 0;
    bunker.state.tamperKind = PAGE_EVENT_KIND;
    const project = await createProject();
    const summary = await signSite(project.dist, {
      site: SITE,
      signer: new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token }),
      cacheFile: project.cacheFile,
      logger: collectingLogger().logger,
      progress: false,
    });
    expect(summary.failed).toBe(1);
    expect(summary.pages.find((page) => page.outcome === 'failed')?.error).toMatch(/Schnorr signature/);
    const events = JSON.parse(await readFile(join(project.cacheFile), 'utf8')) as {
      pages: Record<string, { event: NostrEvent }>;
    };
    for (const entry of Object.values(events.pages)) expect(verifyEvent({ ...entry.event })).toBe(true);
  });

  it('a forged signature on the site manifest stops the run with an error that names the manifest', async () => {
    bunker = await startTinyBunker();
    bunker.state.tamperAt = 0;
    bunker.state.tamperKind = NSITE_NAMED_KIND; // a named site: the default without --root-site
    const project = await createProject();
    const run = signSite(project.dist, {
      site: SITE,
      signer: new HttpBunkerSigner({ url: bunker.url, apiToken: bunker.token }),
      cacheFile: project.cacheFile,
      logger: collectingLogger().logger,
      progress: false,
    });
    await expect(run).rejects.toThrow(/site manifest that does not verify/);
    expect(existsSync(join(project.dist, 'verify', 'manifest.json'))).toBe(false);
  });
});
