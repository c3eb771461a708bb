// A run that leaves no page signed is an error (`nothing_signed`, exit 1), in every host: signSite throws
// it after the summary (issue 39, item 4). A run whose pages all come from the cache is not.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PageReport, SiegelError, type SignSummary, signSite } from '../src/index.js';
import { describeNothingSigned, summarize } from '../src/pipeline/summary.js';
import { runCli } from './support/run-cli.js';
import { CountingSigner, collectingLogger, KEY_A, SITE, useFixtureProjects } from './support/site-fixture.js';

const { createProject } = useFixtureProjects();

const summaryOf = (outcomes: PageReport['outcome'][], dryRun = false): SignSummary =>
  summarize(
    outcomes.map((outcome, index) => ({ path: `p${index}.html`, outcome })),
    dryRun,
  );

const NO_MAIN = '<!doctype html><title>No main</title><div>nothing to sign</div>\n';
const HINT =
  ". If the content is in another element, name it with `--selector` (`selector` in a build integration's options)";

/** The error a call throws, or `undefined`. */
async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('describeNothingSigned', () => {
  it('says so when no HTML page was found, naming the directory as the place to look', () => {
    expect(describeNothingSigned(summaryOf([]), { dir: 'dist' })).toBe(
      'Siegel: no HTML page found in `dist`, nothing signed. Is `dist` the directory the site is built into?',
    );
    // The host named the pages (Eleventy's list of what it wrote): none named is no wrong directory.
    expect(describeNothingSigned(summaryOf([]), { dir: 'dist', named: true })).toBe(
      'Siegel: no HTML page found in `dist`, nothing signed',
    );
  });

  it('says so when pages were found but none has the element, naming the selector and `--selector`', () => {
    expect(describeNothingSigned(summaryOf(['skipped', 'skipped', 'skipped']), { dir: 'dist' })).toBe(
      `Siegel: 3 HTML pages found in \`dist\`, none signed: none has a <main>${HINT}`,
    );
    expect(describeNothingSigned(summaryOf(['skipped']), { dir: '_site', selector: 'article' })).toBe(
      `Siegel: 1 HTML page found in \`_site\`, none signed: it has no <article>${HINT}`,
    );
    expect(
      describeNothingSigned(summaryOf(['skipped', 'skipped']), { dir: 'out', selector: '#content' }),
    ).toBe(`Siegel: 2 HTML pages found in \`out\`, none signed: none has a \`#content\`${HINT}`);
  });

  it('counts the reasons when pages were skipped, refused or failed', () => {
    expect(
      describeNothingSigned(summaryOf(['skipped', 'refused', 'refused', 'failed']), { dir: 'dist' }),
    ).toBe(
      `Siegel: 4 HTML pages found in \`dist\`, none signed: 1 without <main>, 2 refused, 1 failed${HINT}`,
    );
    expect(describeNothingSigned(summaryOf(['refused']), { dir: 'dist' })).toBe(
      'Siegel: 1 HTML page found in `dist`, none signed: 1 refused',
    );
  });

  it('in a dry run, says none would be signed', () => {
    expect(describeNothingSigned(summaryOf(['skipped', 'skipped'], true), { dir: 'dist' })).toBe(
      `Siegel: 2 HTML pages found in \`dist\`, none would be signed: none has a <main>${HINT}`,
    );
  });

  it('is silent when at least one page carries a signature, signed now, from the cache, or in a dry run', () => {
    expect(describeNothingSigned(summaryOf(['signed', 'skipped']), { dir: 'dist' })).toBeUndefined();
    expect(describeNothingSigned(summaryOf(['unchanged', 'failed']), { dir: 'dist' })).toBeUndefined();
    expect(describeNothingSigned(summaryOf(['unchanged', 'unchanged']), { dir: 'dist' })).toBeUndefined();
    expect(describeNothingSigned(summaryOf(['would-sign'], true), { dir: 'dist' })).toBeUndefined();
  });
});

describe('signSite fails a run that signs nothing', () => {
  it('after the summary, with `nothing_signed`, when no page has a <main>', async () => {
    const { dist, cacheFile } = await createProject({ 'index.html': NO_MAIN, 'a/b.html': NO_MAIN });
    const { logger, info, warn } = collectingLogger();
    const signer = new CountingSigner(KEY_A);
    const error = await thrown(() =>
      signSite(dist, { site: SITE, signer, cacheFile, logger, progress: false }),
    );
    expect(error).toBeInstanceOf(SiegelError);
    expect(error).toMatchObject({
      code: 'nothing_signed',
      message: `Siegel: 2 HTML pages found in \`${dist}\`, none signed: none has a <main>${HINT}`,
    });
    expect(info.at(-1)).toBe('Siegel: 0 signed, 0 unchanged, 2 skipped (no <main>), 0 failed');
    expect(warn).toEqual([]);
    expect(signer.calls).toBe(0);
  });

  it('when the directory holds no HTML page', async () => {
    const { dist, cacheFile } = await createProject({ 'index.html': NO_MAIN });
    const empty = join(dist, 'empty');
    await mkdir(join(empty, 'assets'), { recursive: true });
    await writeFile(join(empty, 'assets/app.js'), 'console.log(1);\n');
    const { logger } = collectingLogger();
    const error = await thrown(() =>
      signSite(empty, { site: SITE, signer: new CountingSigner(KEY_A), cacheFile, logger, progress: false }),
    );
    expect(error).toMatchObject({
      code: 'nothing_signed',
      message: `Siegel: no HTML page found in \`${empty}\`, nothing signed. Is \`${empty}\` the directory the site is built into?`,
    });
  });

  it('not when the host names no page (`files: []`): a warning', async () => {
    const { dist, cacheFile } = await createProject({ 'index.html': NO_MAIN });
    const { logger, warn } = collectingLogger();
    const summary = await signSite(dist, {
      site: SITE,
      signer: new CountingSigner(KEY_A),
      cacheFile,
      logger,
      progress: false,
      files: [],
    });
    expect(summary.pages).toEqual([]);
    expect(warn).toEqual([`Siegel: no HTML page found in \`${dist}\`, nothing signed`]);
  });

  it('not when pages failed (they fail the run already): the summary is returned, the message warned', async () => {
    const { dist, cacheFile } = await createProject({
      'index.html': '<title>T</title><main>long enough</main>',
    });
    const { logger, warn } = collectingLogger();
    const summary = await signSite(dist, {
      site: SITE,
      signer: new CountingSigner(KEY_A),
      cacheFile,
      logger,
      progress: false,
      maxPageBytes: 10,
    });
    expect(summary).toMatchObject({ signed: 0, failed: 1 });
    expect(warn).toEqual([`Siegel: 1 HTML page found in \`${dist}\`, none signed: 1 failed`]);
  });

  it('not when pages were signed, nor when every page is unchanged', async () => {
    const { dist, cacheFile } = await createProject();
    const { logger, warn } = collectingLogger();
    const options = { site: SITE, signer: new CountingSigner(KEY_A), cacheFile, logger, progress: false };
    expect((await signSite(dist, options)).signed).toBeGreaterThan(0);
    const again = await signSite(dist, options);
    expect(again).toMatchObject({ signed: 0, failed: 0 });
    expect(again.unchanged).toBeGreaterThan(0);
    expect(warn).toEqual([]);
  });

  it('`siegel sign` prints it on stderr and exits 1, naming `--selector` and the directory; a dry run too', async () => {
    const { root } = await createProject({ 'index.html': NO_MAIN, 'about/index.html': NO_MAIN });
    const env = { SIEGEL_SECRET_KEY: '9'.repeat(64), SITE_URL: 'https://example.com' };
    const run = await runCli(['sign', 'dist'], root, env);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toBe('Siegel: 0 signed, 0 unchanged, 2 skipped (no <main>), 0 failed\n');
    // stderr also carries the local-key notice; the error is a line of its own.
    expect(run.stderr.split('\n')).toContain(
      `Siegel: 2 HTML pages found in \`dist\`, none signed: none has a <main>${HINT}`,
    );
    const dry = await runCli(['sign', 'dist', '--dry-run', '--selector', 'article'], root, env);
    expect(dry.code, dry.stderr).toBe(1);
    expect(dry.stderr.split('\n')).toContain(
      `Siegel: 2 HTML pages found in \`dist\`, none would be signed: none has an <article>${HINT}`,
    );
    await mkdir(join(root, 'empty'));
    const empty = await runCli(['sign', 'empty'], root, env);
    expect(empty.code, empty.stderr).toBe(1);
    expect(empty.stderr.split('\n')).toContain(
      'Siegel: no HTML page found in `empty`, nothing signed. Is `empty` the directory the site is built into?',
    );
  }, 60_000);
});
