// Evidence files (siegel-evidence/1): real evidence of a real signed page re-checks offline; edited bytes,
// events or manifests fail; live findings are kept as observed; bad input is named.
import { describe, expect, it } from 'vitest';
import { checkEvidence, readEvidence } from '../src/verify/evidence.js';
import type { Evidence } from '../src/verify/evidence-format.js';
import type { Problem } from '../src/verify/rules.js';
import { editBytes, RELAY, signedSite } from './support/evidence-fixture.js';
import { useFixtureProjects } from './support/site-fixture.js';

const { defer } = useFixtureProjects();
const PAGE = 'blog/first/index.html';

async function site() {
  const signed = await signedSite();
  defer(signed.project.cleanup);
  return signed;
}

/** Through JSON and back, as a saved file is. */
const roundTrip = (evidence: Evidence) => readEvidence(JSON.stringify(evidence));
const codes = (problems: Array<{ code: string }>) => problems.map((problem) => problem.code);

describe('evidence of a valid page', () => {
  it('re-checks offline: the same rule-book codes, valid, the relay answers recorded', async () => {
    const { evidenceOf } = await site();
    const evidence = roundTrip(await evidenceOf(PAGE));
    expect(evidence.verdict.verdict).toBe('valid');
    expect(evidence.relays.map((answer) => [answer.relay, answer.purpose])).toContainEqual([
      RELAY,
      'manifest',
    ]);
    expect(evidence.manifest?.files.map((file) => file.path)).toContain('/verify/manifest.json');
    const check = await checkEvidence(evidence);
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    expect(check.verdict).toBe('valid');
    expect(codes(check.rederived.problems)).toEqual(codes(evidence.verdict.problems));
  });

  it('never keeps Set-Cookie, and keeps the other headers in lower case', async () => {
    const { evidenceOf } = await site();
    const evidence = await evidenceOf(PAGE);
    expect(evidence.page.headers).toEqual({ 'content-type': 'text/html; charset=utf-8' });
    expect(JSON.stringify(evidence)).not.toContain('secret');
  });

  it('keeps live findings as observed: the page is not valid, the evidence holds', async () => {
    const { evidenceOf } = await site();
    // A live finding's code as the extension gives it (its row is in PROBLEM_CODES once the extension lands).
    const changed = {
      code: 'live.changed',
      severity: 'error',
      message: 'a script rewrote <main>',
    } as unknown as Problem;
    const evidence = roundTrip(await evidenceOf(PAGE, [changed]));
    expect(codes(evidence.live)).toEqual(['live.changed']);
    const check = await checkEvidence(evidence);
    expect(check.ok).toBe(true);
    expect(check.verdict).toBe('invalid');
    expect(codes(check.observed)).toEqual(['live.changed']);
    expect(check.rederived.verdict).toBe('valid');
  });
});

describe('edited evidence fails', () => {
  it('edited bytes in <main>: the re-derived codes disagree (hash.mismatch)', async () => {
    const { evidenceOf } = await site();
    const edited = editBytes(await evidenceOf(PAGE), (html) => html.replace('One &lt; two', 'One &gt; two'));
    const check = await checkEvidence(roundTrip(edited));
    expect(check.ok).toBe(false);
    expect(codes(check.problems)).toContain('evidence.disagrees');
    expect(codes(check.rederived.problems)).toContain('hash.mismatch');
    expect(check.verdict).toBe('invalid');
  });

  it('edited bytes outside <main>: the manifest’s hash of the page disagrees', async () => {
    const { evidenceOf } = await site();
    const edited = editBytes(await evidenceOf(PAGE), (html) => html.replace('</body>', '<!-- x --></body>'));
    const check = await checkEvidence(roundTrip(edited));
    expect(check.ok).toBe(false);
    expect(codes(check.rederived.problems)).toContain('manifest.bytes_differ');
    expect(codes(check.problems)).toEqual(['evidence.disagrees']);
  });

  it('an edited event: event.id re-derived, the evidence disagrees', async () => {
    const { evidenceOf } = await site();
    const evidence = await evidenceOf(PAGE);
    const found = structuredClone((evidence.event as { found: { created_at: number } }).found);
    found.created_at += 1;
    const check = await checkEvidence(roundTrip({ ...evidence, event: { found } }));
    expect(check.ok).toBe(false);
    expect(codes(check.rederived.problems)).toContain('event.id');
    expect(codes(check.problems)).toContain('evidence.disagrees');
  });

  it('an edited manifest a relay answered: evidence.manifest', async () => {
    const { evidenceOf } = await site();
    const evidence = await evidenceOf(PAGE);
    const relays = evidence.relays.map((answer) => ({
      ...answer,
      events: answer.events.map((event) => ({ ...(event as object), created_at: 1 })),
    }));
    const check = await checkEvidence(roundTrip({ ...evidence, relays }));
    expect(check.ok).toBe(false);
    expect(codes(check.problems)).toContain('evidence.manifest');
  });

  it('an edited site copy of the manifest: evidence.manifest', async () => {
    const { evidenceOf } = await site();
    const evidence = await evidenceOf(PAGE);
    const manifest = evidence.manifest as NonNullable<Evidence['manifest']>;
    const files = manifest.files.map((file) => {
      if (file.path !== '/verify/manifest.json' || file.body === undefined) return file;
      const event = JSON.parse(Buffer.from(file.body, 'base64').toString('utf8'));
      event.tags.push(['x', 'edited']);
      return { ...file, body: Buffer.from(JSON.stringify(event)).toString('base64') };
    });
    const check = await checkEvidence(roundTrip({ ...evidence, manifest: { ...manifest, files } }));
    expect(codes(check.problems)).toContain('evidence.manifest');
  });

  it('a recorded verdict that does not follow: evidence.disagrees', async () => {
    const { evidenceOf } = await site();
    const evidence = await evidenceOf(PAGE);
    const check = await checkEvidence(
      roundTrip({ ...evidence, verdict: { ...evidence.verdict, verdict: 'invalid' } }),
    );
    expect(codes(check.problems)).toEqual(['evidence.disagrees']);
  });
});

describe('readEvidence', () => {
  it('names what is wrong: not JSON, another format, a bad field, too big', async () => {
    expect(() => readEvidence('{')).toThrow(/not JSON/);
    expect(() => readEvidence('{"format":"other/1"}')).toThrow(/`other\/1`, expected `siegel-evidence\/1`/);
    expect(() => readEvidence('{"format":"siegel-evidence/1"}')).toThrow(/not valid `siegel-evidence\/1`/);
    expect(() => readEvidence(' '.repeat(64 * 1024 * 1024 + 1))).toThrow(/larger than/);
  });
});
