// `siegel verify --evidence FILE [--json]`, the built CLI on real evidence of a real signed page: exit 0 on
// evidence that holds, 1 on edited bytes, an edited event or an edited manifest, 2 on a file that is not
// evidence; the live findings and relay and NIP-05 answers shown as observed, not re-checkable.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../src/verify/evidence-format.js';
import { editBytes, RELAY, signedSite } from './support/evidence-fixture.js';
import { runCli } from './support/run-cli.js';
import { useFixtureProjects } from './support/site-fixture.js';

const { defer } = useFixtureProjects();

async function withEvidence() {
  const signed = await signedSite();
  defer(signed.project.cleanup);
  const evidence = await signed.evidenceOf('blog/first/index.html');
  const check = async (what: Evidence | string, ...args: string[]) => {
    const file = join(signed.project.root, 'evidence.json');
    await writeFile(file, typeof what === 'string' ? what : JSON.stringify(what));
    return runCli(['verify', '--evidence', file, ...args], signed.project.root);
  };
  return { evidence, check };
}

describe('siegel verify --evidence', () => {
  it('evidence that holds: exit 0, observed answers marked as not re-checkable', async () => {
    const { evidence, check } = await withEvidence();
    const result = await check(evidence);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Re-derived offline from the recorded bytes, event and manifest: valid');
    expect(result.stdout).toContain('Observed by the extension then, not re-checkable:');
    expect(result.stdout).toContain(`${RELAY} (manifest): 1 event`);
    expect(result.stdout).toContain('NIP-05 alice@example.com: confirmed');
    expect(result.stdout).toContain('The evidence holds');
  });

  it('--json: ok, the verdict, the re-derived and the recorded problems', async () => {
    const { evidence, check } = await withEvidence();
    const result = await check(evidence, '--json');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      ok: true,
      verdict: 'valid',
      problems: [],
      recorded: { verdict: 'valid' },
    });
    expect(report.observed.relays).toContainEqual({ purpose: 'manifest', relay: RELAY, events: 1 });
  });

  it('edited bytes, an edited event, an edited manifest: exit 1 with the evidence code', async () => {
    const { evidence, check } = await withEvidence();
    const bytes = editBytes(evidence, (html) => html.replace('One &lt; two', 'Two'));
    const found = structuredClone((evidence.event as { found: { content: string } }).found);
    found.content = 'edited';
    const relays = evidence.relays.map((answer) => ({
      ...answer,
      events: answer.events.map((event) => ({ ...(event as object), content: 'edited' })),
    }));
    for (const [edited, code] of [
      [bytes, 'evidence.disagrees'],
      [{ ...evidence, event: { found } }, 'evidence.disagrees'],
      [{ ...evidence, relays }, 'evidence.manifest'],
    ] as const) {
      const result = await check(edited, '--json');
      expect(result.code, code).toBe(1);
      const report = JSON.parse(result.stdout);
      expect(report.ok).toBe(false);
      expect(report.problems.map((problem: { code: string }) => problem.code)).toContain(code);
    }
    const text = await check(bytes);
    expect(text.stdout).toContain('The evidence does not hold');
    expect(text.stdout).toContain('hash.mismatch');
  });

  it('a file that is not evidence, or other options: a usage error, exit 2', async () => {
    const { evidence, check } = await withEvidence();
    for (const [input, message] of [
      ['not json', /is not JSON/],
      ['{"format":"siegel-page/2"}', /expected `siegel-evidence\/1`/],
      ['{"format":"siegel-evidence/1","page":{}}', /not valid `siegel-evidence\/1`/],
    ] as const) {
      const result = await check(input);
      expect(result.code, input).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const relay = await check(evidence, '--relay', RELAY);
    expect(relay.code).toBe(2);
    expect(relay.stderr).toContain('`--relay` is not for `--evidence`');
  });
});
