// A run that leaves no page signed says so as a warning, in every host (signSite logs it) — never silent.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PageReport, type SignSummary, signSite } from '../src/index.js';
import { formatNothingSignedWarning, summarize } from '../src/pipeline/summary.js';
import { runCli } from './support/run-cli.js';
import { CountingSigner, collectingLogger, KEY_A, SITE, useFixtureProjects } from './support/site-fixture.js';

const { createProject } = useFixtureProjects();

const summaryOf = (outcomes: PageReport['outcome'][], dryRun = false): SignSummary =>
  summarize(
    outcomes.map((outcome, index) => ({ path: `p${index}.html`, outcome })),
    dryRun,
  );

const NO_MAIN = '<!doctype html><title>No main</title><div>nothing to sign</div>\n';

describe('formatNothingSignedWarning', () => {
  it('says so when no HTML page was found, quoting the directory', () => {
    expect(formatNothingSignedWarning(summaryOf([]), { dir: 'dist' })).toBe(
      'Siegel: no HTML page found in `dist`, nothing signed',
    );
  });

  it('says so when pages were found but none has the element, naming the selector', () => {
    expect(formatNothingSignedWarning(summaryOf(['skipped', 'skipped', 'skipped']), { dir: 'dist' })).toBe(
      'Siegel: 3 HTML pages found in `dist`, none signed: none has a <main>',
    );
    expect(formatNothingSignedWarning(summaryOf(['skipped']), { dir: '_site', selector: 'article' })).toBe(
      'Siegel: 1 HTML page found in `_site`, none signed: it has no <article>',
    );
    expect(
      formatNothingSignedWarning(summaryOf(['skipped', 'skipped']), { dir: 'out', selector: '#content' }),
    ).toBe('Siegel: 2 HTML pages found in `out`, none signed: none has a `#content`');
  });

  it('counts the reasons when pages were skipped, refused or failed', () => {
    expect(
      formatNothingSignedWarning(summaryOf(['skipped', 'refused', 'refused', 'failed']), { dir: 'dist' }),
    ).toBe('Siegel: 4 HTML pages found in `dist`, none signed: 1 without <main>, 2 refused, 1 failed');
    expect(formatNothingSignedWarning(summaryOf(['refused']), { dir: 'dist' })).toBe(
      'Siegel: 1 HTML page found in `dist`, none signed: 1 refused',
    );
  });

  it('in a dry run, says none would be signed', () => {
    expect(formatNothingSignedWarning(summaryOf(['skipped', 'skipped'], true), { dir: 'dist' })).toBe(
      'Siegel: 2 HTML pages found in `dist`, none would be signed: none has a <main>',
    );
  });

  it('is silent when at least one page carries a signature, signed now, from the cache, or in a dry run', () => {
    expect(formatNothingSignedWarning(summaryOf(['signed', 'skipped']), { dir: 'dist' })).toBeUndefined();
    expect(formatNothingSignedWarning(summaryOf(['unchanged', 'failed']), { dir: 'dist' })).toBeUndefined();
    expect(formatNothingSignedWarning(summaryOf(['would-sign'], true), { dir: 'dist' })).toBeUndefined();
  });
});

describe('signSite warns when nothing was signed', () => {
  it('after the summary, through the logger’s warn, when no page has a <main>', async () => {
    const { dist, cacheFile } = await createProject({ 'index.html': NO_MAIN, 'a/b.html': NO_MAIN });
    const { logger, info, warn } = collectingLogger();
    const signer = new CountingSigner(KEY_A);
    const summary = await signSite(dist, { site: SITE, signer, cacheFile, logger, progress: false });
    expect(summary).toMatchObject({ signed: 0, skipped: 2 });
    expect(info.at(-1)).toBe('Siegel: 0 signed, 0 unchanged, 2 skipped (no <main>), 0 failed');
    expect(warn).toEqual([`Siegel: 2 HTML pages found in \`${dist}\`, none signed: none has a <main>`]);
    expect(signer.calls).toBe(0);
  });

  it('when the directory holds no HTML page', async () => {
    const { dist, cacheFile } = await createProject({ 'index.html': NO_MAIN });
    const empty = join(dist, 'empty');
    await mkdir(join(empty, 'assets'), { recursive: true });
    await writeFile(join(empty, 'assets/app.js'), 'console.log(1);\n');
    const { logger, warn } = collectingLogger();
    await signSite(empty, {
      site: SITE,
      signer: new CountingSigner(KEY_A),
      cacheFile,
      logger,
      progress: false,
    });
    expect(warn).toEqual([`Siegel: no HTML page found in \`${empty}\`, nothing signed`]);
  });

  it('not when pages were signed', async () => {
    const { dist, cacheFile } = await createProject();
    const { logger, warn } = collectingLogger();
    await signSite(dist, {
      site: SITE,
      signer: new CountingSigner(KEY_A),
      cacheFile,
      logger,
      progress: false,
    });
    expect(warn).toEqual([]);
  });

  it('`siegel sign` prints it on stderr and still exits 0 (nothing failed)', async () => {
    const { root } = await createProject({ 'index.html': NO_MAIN, 'about/index.html': NO_MAIN });
    const env = { SIEGEL_SECRET_KEY: '9'.repeat(64), SITE_URL: 'https://example.com' };
    const run = await runCli(['sign', 'dist'], root, env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Siegel: 0 signed, 0 unchanged, 2 skipped (no <main>), 0 failed\n');
    // stderr also carries the local-key notice; the warning is a line of its own.
    expect(run.stderr.split('\n')).toContain(
      'Siegel: 2 HTML pages found in `dist`, none signed: none has a <main>',
    );
    const dry = await runCli(['sign', 'dist', '--dry-run', '--selector', 'article'], root, env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr.split('\n')).toContain(
      'Siegel: 2 HTML pages found in `dist`, none would be signed: none has an <article>',
    );
  }, 60_000);
});
