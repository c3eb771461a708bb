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
      'the element itself, <main>, carries `hidden`',
    );
    expect(analyzePage(page('<div hidden><main>a</main></div>')).refusal?.message).toContain(
      'an ancestor <div> carries `hidden`',
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
    // Other ignored tags are refused, inside a template in the element too (<table> in a template's row).
    expect(analyzePage(page('<main><template><tr><table>x</template></main>')).refusal?.code).toBe(
      'ignored-markup',
    );
  });

  it('signs tags a template drops after <col> or in a table body, unless Chromium reads the template "in body" (issue 34)', () => {
    // "In column group" with the template current ignores every tag but <col> and <template>; "in table body"
    // ignores <table> and the table's own tags: both browsers drop them with nothing kept.
    for (const [main, content] of [
      ['<template><col><div>x</div></template>', '<template><col></template>'],
      ['<template><col><table>x</table><img src=y></template>', '<template><col></template>'],
      [
        '<template><tbody><table><tr><td>a</table>b</template>',
        '<template><tbody><tr><td>ab</td></tr></tbody></template>',
      ],
      ['<template><tr></tr><caption>c</template>', '<template><tr></tr>c</template>'],
    ] as const) {
      const analysis = analyzePage(page(`<main>${main}</main>`));
      expect(analysis.refusal, main).toBeUndefined();
      expect(analysis.hash, main).toBe(hashContent(content));
    }
    // After a <title> (<base>, <basefont>, <bgsound>, <noframes>) first in a template, Chromium reads it "in
    // body": it ignores the <col> and keeps the <table> (`x<table></table>`), where the standard has <col>.
    const title = analyzePage(
      page('<main><template><title>t</title><col><table>x</table></template></main>'),
    );
    expect(title.refusal?.code).toBe('ignored-markup');
    expect(title.refusal?.message).toBe(
      'the start tag <col> at line 1, column 89 inside <main>, which the standard reads as table markup, and Chromium by the "in body" rules (it reads a <template> so from a <title>, <base>, <basefont>, <bgsound> or <noframes> on): a reader in that browser is shown other markup than the hash covers',
    );
    expect(analyzePage(page('<main><template><base><tr><td>x</template></main>')).refusal?.code).toBe(
      'ignored-markup',
    );
    expect(analyzePage(page('<main><template><title>t</title></p>x</template></main>')).refusal?.code).toBe(
      'ignored-markup',
    );
    // <link>, <meta>, <script>, <style> keep the template "in template" in Chromium too.
    expect(analyzePage(page('<main><template><link><tr><td>x</template></main>')).refusal).toBeUndefined();
    // A <form> in a template's table body is ignored by the standard and kept (empty) by Chromium.
    expect(analyzePage(page('<main><template><tbody><form>x</template></main>')).refusal?.message).toContain(
      'the start tag <form> at line 1, column 80 inside <main>, which the standard ignores in a table inside a <template>, and Chromium keeps as an empty <form>',
    );
  });

  it('refuses the shapes Chromium reads otherwise inside <template>: <form> in a table, </form> across a special element', () => {
    const formInTable = analyzePage(page('<main><template><caption></caption><form>x</template></main>'));
    expect(formInTable.refusal?.code).toBe('ignored-markup');
    expect(formInTable.refusal?.message).toContain('start tag <form>');
    // The standard closes the form and the <dl>; Chromium ignores </form> at the <dl> and keeps `x` in it.
    const formEnd = analyzePage(page('<main><template><form><dl></form>x</template></main>'));
    expect(formEnd.refusal?.message).toBe(
      'the end tag </form> at line 1, column 83 inside <main>, which the standard lets close the form across the open <dl>, and Chromium ignores there (inside a <template> it reads </form> as any other end tag): a reader in that browser is shown other markup than the hash covers',
    );
    // Read alike: no special element above the form, or no template open, or a second form outside one.
    for (const main of [
      '<template><form><span></form>x</template>',
      '<template><form><b></form>x</template>',
      '<div><form><dl></form>x</div>',
      '<form><table><form></table></form>',
    ])
      expect(analyzePage(page(`<main>${main}</main>`)).refusal, main).toBeUndefined();
  });

  it('refuses a page whose misnested tags cross an open <dialog> or <search>, which Firefox counts as special', () => {
    for (const main of [
      '<em><dialog>a</em>x</dialog>y', // the adoption agency: Firefox moves `x` into the closed dialog
      '<a href="/s"><search>s</a>x</search>y',
      '<span><dialog open>a</span>x</dialog>y', // any other end tag
      '<ul><li><dialog>a<li>b</dialog></ul>', // <li> does not close the first item in Firefox: `b` is hidden
      '<dl><dd><search>a<dt>b</search></dl>',
    ]) {
      const refusal = analyzePage(page(`<main>${main}</main>`)).refusal;
      expect(refusal?.code, main).toBe('ignored-markup');
      expect(refusal?.message, main).toMatch(/which Firefox counts as a special element/);
    }
    // Anywhere in the page: before the element, Firefox would put it inside the closed dialog.
    expect(analyzePage(page('<main>m</main>', '<em><dialog>a</em>')).refusal?.message).toBe(
      'the end tag </em> at line 1, column 70 in the page, whose handling crosses an open <dialog>, which Firefox counts as a special element: Firefox builds another tree from there on (it can move the rest of the page into a closed <dialog>): a reader in that browser is shown other markup than the hash covers',
    );
    // Well nested, or a special element (<div>, <section>) stops the walk before the dialog: read alike.
    for (const main of [
      '<dialog open><em>a</em></dialog><search><a href="/s">s</a></search>',
      '<dialog><em>a</dialog>b',
      '<span><div><dialog>a</span>x</dialog></div>',
      '<ul><li><section><dialog>a<li>b</dialog></section></ul>',
      '<p><dialog>a</p>x</dialog>y',
    ])
      expect(analyzePage(page(`<main>${main}</main>`)).refusal, main).toBeUndefined();
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
    const title = analyzePage(html).title;
    const template = createPageEvent({
      hash,
      url: `${SITE}/old.html`,
      createdAt: 1767225600,
      ...(title ? { title } : {}),
    });
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
    // Signed before manifests (no `a` tag): valid, and says currency was not checked.
    expect(old).toMatchObject({ verdict: 'valid', spec: 'siegel-page/1' });
    expect(old?.problems.map((p) => p.code)).toEqual(['manifest.unchecked']);
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
      // No relay of the verifier's: currency unchecked.
      expect.objectContaining({ code: 'manifest.unchecked', severity: 'warning' }),
    ]);
  });
});
