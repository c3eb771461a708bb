// Real evidence of a real signed page, as the browser extension records it: a fixture site signed by
// `signSite` (page events and the site manifest), its page judged by `judgePage` with the manifest
// gathered through `createEvidenceRecorder` (a relay that holds the manifest, the site's files from disk),
// and `buildEvidence`. No socket: the relay is a function answering from the signed manifest.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { getEventHash, type NostrEvent, verifyEvent } from 'nostr-tools/pure';
import { LocalKeySigner, signSite } from '../../src/index.js';
import { readPageForCheck } from '../../src/page/analyze.js';
import { buildEvidence, createEvidenceRecorder } from '../../src/verify/evidence.js';
import type { Evidence } from '../../src/verify/evidence-format.js';
import { judgePage, type Problem } from '../../src/verify/rules.js';
import { createFixtureProject, SITE } from './site-fixture.js';

export const RELAY = 'wss://relay.example.com';
const KEY = '7'.repeat(64);
const valid = (event: NostrEvent) => getEventHash(event) === event.id && verifyEvent({ ...event });

/** A signed fixture site; `evidenceOf` records evidence of one of its pages. */
export async function signedSite() {
  const project = await createFixtureProject();
  await signSite(project.dist, {
    site: SITE,
    signer: new LocalKeySigner(KEY),
    cacheFile: project.cacheFile,
    logger: { info: () => {}, warn: () => {} },
    progress: false,
    parseWorkers: 0,
  });
  const manifest = JSON.parse(
    await readFile(join(project.dist, 'verify/manifest.json'), 'utf8'),
  ) as NostrEvent;
  /**
   * Evidence of the page at `path` (`blog/first/index.html`), as the extension would record it; `live`:
   * findings only the browser could make, added to the verdict.
   */
  async function evidenceOf(path: string, live: Problem[] = []): Promise<Evidence> {
    const bytes = new Uint8Array(await readFile(join(project.dist, path)));
    const address = new URL(path.replace(/index\.html$/, ''), `${SITE}/`).href;
    const reading = readPageForCheck(Buffer.from(bytes), 'main', { contentType: 'text/html; charset=utf-8' });
    const eventId = reading.signatureBlock?.eventId as string;
    const from = `${SITE}/verify/${eventId}.json`;
    const found = JSON.parse(await readFile(join(project.dist, `verify/${eventId}.json`), 'utf8')) as unknown;
    const recorder = createEvidenceRecorder();
    const gather = recorder.gatherManifest({
      relays: [RELAY],
      hintAllowed: () => true,
      ask: async (relay, filter) => {
        const kinds = (filter.kinds ?? []) as number[];
        return { relay, events: kinds.includes(manifest.kind) ? [manifest] : [], rejected: 0 };
      },
      valid,
      readSiteFile: (file) => readFile(join(project.dist, file)).then((data) => new Uint8Array(data)),
      sha256: (data) => bytesToHex(sha256(data)),
      chunks: true,
    });
    const manifestEvidence = await gather(found, reading.signatureBlock?.relays ?? [], address, bytes);
    const judgement = judgePage({
      readPage: (spec) => {
        const again = readPageForCheck(Buffer.from(bytes), 'main', { spec, contentType: 'text/html' });
        return { ...again, refusal: again.encoding ?? again.refusal };
      },
      block: reading.signatureBlock,
      event: { found, from },
      address,
      ...(manifestEvidence ? { manifest: manifestEvidence } : {}),
    });
    const problems = [...judgement.problems, ...live];
    const verdict = live.some((problem) => problem.severity === 'error') ? 'invalid' : judgement.verdict;
    return buildEvidence({
      page: {
        url: address,
        status: 200,
        headers: [
          ['Content-Type', 'text/html; charset=utf-8'],
          ['Set-Cookie', 'session=secret'],
        ],
        bytes,
      },
      event: { found, from },
      recorder,
      nip05: { name: 'alice@example.com', pubkey: manifest.pubkey, confirmed: true },
      signer: { pubkey: manifest.pubkey, trust: 'first' },
      judgement: { verdict, problems },
      state: verdict === 'valid' ? 'VALID' : 'CHANGED',
      recordedAt: new Date('2026-11-28T12:00:00Z'),
      recordedBy: 'test',
    });
  }
  return { project, manifest, evidenceOf };
}

/** A copy of `evidence` with its page's bytes changed by `edit` (on the text). */
export function editBytes(evidence: Evidence, edit: (html: string) => string): Evidence {
  const html = Buffer.from(evidence.page.body, 'base64').toString('utf8');
  return { ...evidence, page: { ...evidence.page, body: Buffer.from(edit(html)).toString('base64') } };
}
