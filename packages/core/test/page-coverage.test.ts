// Issue 9: "valid" means the reader sees what was signed. The rules of siegel-page/2 that make a page
// unsignable (and unverifiable): more than one element, a hidden element, a start tag inside it that the
// parser ignores; and the spec versions: /1 pages are read by their own rules, with the same refusals.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import {
  analyzePage,
  applySignatureBlock,
  createPageEvent,
  hashContent,
  hashPage,
  renderSignatureBlock,
  signSite,
  verifySite,
} from '../src/index.js';
import { CountingSigner, collectingLogger, KEY_A, SITE, useFixtureProjects } from './support/site-fixture.js';

const { createProject } = useFixtureProjects();
const page = (main: string, before = '') =>
  `<!doctype html><html><head><title>T</title></head><body>${before}${main}</body></html>`;

describe('which elements a signature may cover', () => {
  it('refuses more than one matching element, wherever the second one stands', () => {
    for (const html of [
      page('<main>a</main><main>b</main>'),
      page('<main>a</main>', '<main hidden>x</main>'),
      page('<main>a<main>b</main></main>'),
    ]) {
      expect(analyzePage(html).refusal?.code).toBe('multiple');
    }
    expect(analyzePage(page('<main>a</main><template><main>t</main></template>')).refusal).toBeUndefined();
  });

  it('refuses a hidden element: `hidden` or `inert` on it or an ancestor', () => {
    expect(analyzePage(page('<main hidden>a</main>')).refusal?.message).toContain(
      'the element itself has `hidden`',
    );
    expect(analyzePage(page('<div hidden><main>a</main></div>')).refusal?.message).toContain(
      'an ancestor <div> has `hidden`',
    );
    expect(analyzePage(page('<section inert><main>a</main></section>')).refusal?.code).toBe('hidden');
    expect(analyzePage(page('<main>a</main>')).refusal).toBeUndefined();
  });

  it('refuses an ignored start tag inside the element whose attributes a browser keeps, saying where it stands', () => {
    // Issue 23: a stray <body class> inside <main> moves its class onto the page's <body>.
    const html = page('<main>\n<form action="/a"><div>\n  <body class="evil">q</div></form></main>');
    const refusal = analyzePage(html).refusal;
    expect(refusal?.code).toBe('ignored-markup');
    expect(refusal?.message).toContain('<body> at line 3, column 3 inside <main>');
    // A tag the standard drops with nothing kept (a nested <form>, <col> outside a table) is signed.
    expect(
      analyzePage(
        page(
          '<main><form action="/a"><div><form action="https://evil.example/">q</form></div></form></main>',
        ),
      ).refusal,
    ).toBeUndefined();
    expect(analyzePage(page('<main><p><col>x</p></main>')).refusal).toBeUndefined();
    // Other ignored tags are refused, inside a template in the element too (<p> after <col> in a template).
    expect(analyzePage(page('<main><template><col><p>x</p></template></main>')).refusal?.code).toBe(
      'ignored-markup',
    );
  });

  it('keeps markup inside <select> (siegel-page/2), where siegel-page/1 ignored it', () => {
    const html = page(
      '<main><select><option>A</option><img src="https://evil.example/x.png"></select></main>',
    );
    const now = analyzePage(html);
    expect(now.refusal).toBeUndefined();
    expect(now.hash).toBe(
      hashContent('<select><option>A</option><img src="https://evil.example/x.png"></select>'),
    );
    const before = analyzePage(html, { spec: 'siegel-page/1' });
    expect(before.hash).toBe(hashContent('<select><option>A</option></select>'));
    expect(before.refusal?.code).toBe('ignored-markup');
  });

  it('hashes <noscript> text escaped, so text and markup differ; /1 refuses such text as ambiguous', () => {
    const text = page('<main><noscript>&lt;b&gt;&lt;/b&gt;</noscript></main>');
    const markup = page('<main><noscript><b></b></noscript></main>');
    expect(hashPage(text)).toBe(hashContent('<noscript>&lt;b&gt;&lt;/b&gt;</noscript>'));
    expect(hashPage(text)).not.toBe(hashPage(markup));
    expect(hashPage(text, { spec: 'siegel-page/1' })).toBe(hashPage(markup, { spec: 'siegel-page/1' }));
    expect(analyzePage(text, { spec: 'siegel-page/1' }).refusal?.code).toBe('ambiguous-noscript');
    expect(analyzePage(markup, { spec: 'siegel-page/1' }).refusal).toBeUndefined();
  });

  it('keeps processing instructions, serialized as Chromium does', () => {
    expect(hashPage(page('<main><?marker a=1?>x</main>'))).toBe(hashContent('<?marker a=1?>x'));
    expect(hashPage(page('<main><?xml x?>x</main>'))).toBe(hashContent('<!--?xml x?-->x'));
  });
});

describe('signSite refuses what it cannot honestly sign', () => {
  it('lists refused pages with the reason, signs the rest, and a refused page never verifies', async () => {
    const project = await createProject();
    await writeFile(join(project.dist, 'two.html'), page('<main>a</main><main>b</main>'));
    await writeFile(
      join(project.dist, 'form.html'),
      page('<main><form><div><body class=e>x</div></form></main>'),
    );
    const log = collectingLogger();
    const summary = await signSite(project.dist, {
      site: SITE,
      signer: new CountingSigner(KEY_A),
      cacheFile: project.cacheFile,
      logger: log.logger,
      progress: false,
    });
    expect(summary.refused).toBe(2);
    expect(summary.pages.filter((p) => p.outcome === 'refused').map((p) => p.path)).toEqual([
      'form.html',
      'two.html',
    ]);
    const said = log.info.join('\n');
    expect(said).toMatch(/, 2 refused/);
    expect(said).toMatch(/refused {2}form\.html: the HTML parser ignores the start tag <body> at line 1/);
    expect(said).toMatch(/refused {2}two\.html: more than one element matches <main>/);
    expect(await readFile(join(project.dist, 'two.html'), 'utf8')).not.toContain('siegel-page');
    const report = await verifySite(project.dist);
    const two = report.pages.find((p) => p.page === 'two.html');
    expect(two?.verdict).toBe('invalid');
    expect(two?.problems.map((p) => p.code)).toEqual(['block.missing', 'page.multiple']);
    expect(report.pages.filter((p) => p.verdict === 'valid').length).toBe(summary.signed);
  });
});

describe('spec versions', () => {
  /** A page signed under siegel-page/1 as the first wave did: /1 block, /1 hash, event without `spec` tag. */
  async function legacySite(main: string) {
    const project = await createProject();
    const html = page(main);
    const hash = analyzePage(html, { spec: 'siegel-page/1' }).hash as string;
    const template = createPageEvent({ hash, url: `${SITE}/old.html`, createdAt: 1767225600 });
    template.tags = template.tags.filter((tag) => tag[0] !== 'spec');
    const event = finalizeEvent(template, generateSecretKey());
    const block = renderSignatureBlock(event, { verifyUrl: `${SITE}/verify/${event.id}` }).replace(
      'siegel-page/2:',
      'siegel-page/1:',
    );
    await writeFile(join(project.dist, 'old.html'), applySignatureBlock(html, analyzePage(html), block));
    await mkdir(join(project.dist, 'verify'), { recursive: true });
    await writeFile(join(project.dist, 'verify', `${event.id}.json`), JSON.stringify(event));
    return project.dist;
  }

  it('verifies a siegel-page/1 page by the rules it was signed under, and says so', async () => {
    const dist = await legacySite('<main><p>Old &amp; signed</p><noscript><p>no js</p></noscript></main>');
    const old = (await verifySite(dist, { site: SITE })).pages.find((p) => p.page === 'old.html');
    expect(old).toMatchObject({ verdict: 'valid', spec: 'siegel-page/1', problems: [] });
  });

  it('reports a /1 page whose element holds markup the /1 parser discarded as not verifiable', async () => {
    const dist = await legacySite(
      '<main><select><option>A</option><img src="https://evil.example/x.png"></select></main>',
    );
    const old = (await verifySite(dist)).pages.find((p) => p.page === 'old.html');
    expect(old?.verdict).toBe('invalid');
    expect(old?.spec).toBe('siegel-page/1');
    expect(old?.problems[0]).toMatchObject({ code: 'page.ignored_markup', severity: 'error' });
    expect(old?.problems[0]?.message).toMatch(/^not verifiable: the HTML parser ignores the start tag <img>/);
  });

  it('reads a /2 event by /2 rules even when the block claims /1', async () => {
    const project = await createProject();
    await signSite(project.dist, {
      site: SITE,
      signer: new CountingSigner(KEY_A),
      cacheFile: project.cacheFile,
      logger: collectingLogger().logger,
      progress: false,
    });
    const about = join(project.dist, 'about.html');
    await writeFile(about, (await readFile(about, 'utf8')).replace('siegel-page/2:', 'siegel-page/1:'));
    const result = (await verifySite(project.dist, { site: SITE })).pages.find(
      (p) => p.page === 'about.html',
    );
    expect(result?.spec).toBe('siegel-page/2');
    expect(result?.problems).toEqual([
      {
        code: 'block.spec',
        severity: 'error',
        message: 'the block says `siegel-page/1` but the event was signed under `siegel-page/2`',
      },
    ]);
  });
});
