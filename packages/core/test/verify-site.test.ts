import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { neventEncode, npubEncode } from 'nostr-tools/nip19';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import {
  analyzePage,
  applySignatureBlock,
  createPageEvent,
  formatVerifyReport,
  hashPage,
  readSignatureBlock,
  renderSignatureBlock,
  signSite,
  verifySite,
} from '../src/index.js';
import { loadSigningEngine } from '../src/nostr/crypto.js';
import {
  CountingSigner,
  collectingLogger,
  KEY_A,
  KEY_B,
  SITE,
  useFixtureProjects,
} from './support/site-fixture.js';

const { createProject, defer } = useFixtureProjects();
const codes = (page: { problems: Array<{ code: string }> } | undefined) => page?.problems.map((p) => p.code);
const messages = (page: { problems: Array<{ message: string }> } | undefined) =>
  page?.problems.map((p) => p.message).join('\n') ?? '';

async function signedProject(site: string = SITE) {
  const project = await createProject();
  const signer = new CountingSigner(KEY_A);
  await signSite(project.dist, {
    site,
    signer,
    cacheFile: project.cacheFile,
    logger: collectingLogger().logger,
    progress: false,
  });
  return { ...project, pubkey: await signer.getPublicKey() };
}

describe('verifySite', () => {
  it('accepts a signed site, with the expected signer as hex or npub', async () => {
    const { dist, pubkey } = await signedProject();
    for (const expected of [undefined, pubkey, npubEncode(pubkey)]) {
      const report = await verifySite(dist, { site: SITE, ...(expected ? { pubkey: expected } : {}) });
      expect(report).toMatchObject({ ok: true, valid: 4, invalid: 0, notFound: 0, unsigned: 0, skipped: 1 });
      // Issue 36: no relay of the verifier's here, so the manifest's currency is unchecked (a warning).
      expect(report.pages.flatMap((page) => page.problems.map((problem) => problem.code))).toEqual(
        report.pages.map(() => 'manifest.unchecked'),
      );
    }
    const other = await new CountingSigner(KEY_B).getPublicKey();
    const wrong = await verifySite(dist, { pubkey: other });
    expect(wrong.ok).toBe(false);
    expect(wrong.invalid).toBe(4);
    expect(messages(wrong.pages[0])).toContain(`expected \`${other}\``);
    expect(codes(wrong.pages[0])).toEqual(['signer.unexpected', 'address.unchecked', 'manifest.unchecked']);
    await expect(verifySite(dist, { pubkey: 'npub1nope' })).rejects.toThrow(
      /neither 64 hex characters nor an npub/,
    );
  });

  it('reports a changed word in <main>, a forged signature and a missing event, each with the reason', async () => {
    const { dist } = await signedProject();
    const about = join(dist, 'about.html');
    const original = await readFile(about, 'utf8');
    await writeFile(about, original.replace('things', 'thinks'));
    let report = await verifySite(dist);
    const page = report.pages.find((p) => p.page === 'about.html');
    expect(page?.verdict).toBe('invalid');
    expect(codes(page)).toEqual(['hash.mismatch', 'block.hash', 'address.unchecked', 'manifest.unchecked']);
    expect(messages(page)).toMatch(/changed since it was signed/);
    expect(page?.found.hash).not.toBe(page?.expected.hash);
    expect(report.ok).toBe(false);
    expect(formatVerifyReport(report)).toMatch(
      /^INVALID +about\.html {2}\(siegel-page\/2\)\n +signed hash +[0-9a-f]{64}/,
    );
    await writeFile(about, original);

    const eventId = readSignatureBlock(original)?.eventId as string;
    const eventFile = join(dist, 'verify', `${eventId}.json`);
    const event = JSON.parse(await readFile(eventFile, 'utf8'));
    await writeFile(eventFile, JSON.stringify({ ...event, sig: `${event.sig.slice(0, -2)}00` }));
    report = await verifySite(dist, { site: SITE });
    expect(codes(report.pages.find((p) => p.page === 'about.html'))).toEqual(['event.signature']);
    await writeFile(eventFile, JSON.stringify({ ...event, content: 'other' }));
    report = await verifySite(dist, { site: SITE });
    expect(codes(report.pages.find((p) => p.page === 'about.html'))).toEqual(['event.id']);
    await writeFile(eventFile, '{');
    report = await verifySite(dist, { site: SITE });
    const broken = report.pages.find((p) => p.page === 'about.html');
    expect(broken?.verdict).toBe('invalid');
    expect(codes(broken)).toEqual(['event.malformed']);
    expect(messages(broken)).toMatch(/is not valid/);
    // Missing (no copy, no relay): not found — an outage, told apart from tampering.
    await rm(eventFile);
    report = await verifySite(dist, { site: SITE });
    const missing = report.pages.find((p) => p.page === 'about.html');
    expect(missing?.verdict).toBe('not_found');
    expect(codes(missing)).toEqual(['event.not_found']);
    expect(report).toMatchObject({ ok: false, notFound: 1, invalid: 0 });
  });

  it('labels the hashes in the report: the block’s as signed hash, the recomputed one as page hash now', async () => {
    const { dist, pubkey } = await signedProject();
    const about = join(dist, 'about.html');
    const original = await readFile(about, 'utf8');
    const block = readSignatureBlock(original);
    await writeFile(about, original.replace('things', 'thinks'));
    const report = await verifySite(dist, { pubkey });
    const page = report.pages.find((p) => p.page === 'about.html');
    const now = page?.expected.hash as string;
    expect(now).toMatch(/^[0-9a-f]{64}$/);
    expect(now).not.toBe(block?.hash);

    const lines = formatVerifyReport(report, { verbose: true }).split('\n');
    const at = lines.indexOf('INVALID   about.html  (siegel-page/2)');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(lines[at + 1]).toBe(
      `  signed hash   ${block?.hash}  event ${block?.eventId}  pubkey ${block?.pubkey}`,
    );
    expect(lines[at + 2]).toBe(`  page hash now ${now}  expected signer ${pubkey}`);
    // Aligned: both hashes start in the same column.
    expect(lines[at + 1]?.indexOf(block?.hash as string)).toBe(lines[at + 2]?.indexOf(now));
    // Without an expected signer the second line is the hash alone; a valid page shows one hash twice.
    const plain = formatVerifyReport(await verifySite(dist), { verbose: true }).split('\n');
    expect(plain[plain.indexOf('INVALID   about.html  (siegel-page/2)') + 2]).toBe(`  page hash now ${now}`);
    const valid = plain.indexOf('VALID     blog/first/index.html  (siegel-page/2)');
    expect(valid).toBeGreaterThanOrEqual(0);
    const signedHash = /^ {2}signed hash {3}([0-9a-f]{64}) /.exec(plain[valid + 1] ?? '')?.[1];
    expect(signedHash).toMatch(/^[0-9a-f]{64}$/);
    expect(plain[valid + 2]).toBe(`  page hash now ${signedHash}`);
    expect(plain.join('\n')).not.toMatch(/found:|expected:/);
  });

  it('reads the block variants found in the wild (sha256:, npub, nevent)', async () => {
    const { dist, pubkey } = await signedProject();
    const about = join(dist, 'about.html');
    const html = await readFile(about, 'utf8');
    const block = readSignatureBlock(html);
    const variant = html
      .replace(`content="${block?.hash}"`, `content="sha256:${block?.hash}"`)
      .replace(`content="${pubkey}"`, `content="${npubEncode(pubkey)}"`)
      .replace(
        `name="nostr:event" content="${block?.eventId}"`,
        `name="nostr:event" content="${neventEncode({ id: block?.eventId as string })}"`,
      );
    expect(variant).not.toBe(html);
    await writeFile(about, variant);
    const report = await verifySite(dist, { pubkey, site: SITE });
    // The block was rewritten after signing: the manifest's pin of the page's bytes no longer holds (a warning).
    expect(report.pages.find((p) => p.page === 'about.html')).toMatchObject({
      verdict: 'valid',
      problems: [{ code: 'manifest.unchecked' }, { code: 'manifest.bytes_differ' }],
    });
  });

  it('flags a page with <main> but no block as invalid, unsigned (block.missing)', async () => {
    const { dist } = await signedProject();
    await writeFile(join(dist, 'new.html'), '<!doctype html><title>New</title><main>unsigned</main>');
    const report = await verifySite(dist);
    expect(report).toMatchObject({ ok: false, invalid: 1, unsigned: 1, valid: 4 });
    expect(codes(report.pages.find((p) => p.page === 'new.html'))).toEqual(['block.missing']);
    const text = formatVerifyReport(report);
    expect(text).toContain('INVALID   new.html');
    expect(text).toContain('the page carries no signature block [block.missing]');
    // The unchecked address is one warning line for the site, not one per page.
    expect(text).toContain('warning: 4 pages:');
    expect(text).toContain(
      'Siegel verify: 4 valid, 1 invalid (1 unsigned), 0 not found, 1 skipped (no element)',
    );
  });

  it('verifies a site served over HTTP, crawling from the start page', async () => {
    // Listen first: the pages are signed for the address they are served at.
    let dist = '';
    const server = createServer(async (request, response) => {
      let path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
      if (path.endsWith('/')) path += 'index.html';
      try {
        const body = await readFile(join(dist, path));
        const type = extname(path) === '.json' ? 'application/json' : 'text/html; charset=utf-8';
        response.writeHead(200, { 'content-type': type }).end(body);
      } catch {
        response.writeHead(404).end('not found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    defer(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    ({ dist } = await signedProject(url));
    await writeFile(
      join(dist, 'index.html'),
      (await readFile(join(dist, 'index.html'), 'utf8')).replace(
        '</nav>',
        '<a href="/about.html">About</a><a href="/blog/first/">First</a></nav>',
      ),
    );
    // The edit is inside <nav>, outside <main>: the signature still holds.
    const report = await verifySite(url);
    expect(report.pages.map((p) => p.page).sort()).toEqual([
      `${url}`,
      `${url}about.html`,
      `${url}blog/first/`,
    ]);
    expect(report).toMatchObject({ ok: true, valid: 3 });
    // Only the manifest's warnings (issue 36): currency unchecked without a relay; the page whose <nav>
    // changed no longer has the bytes the manifest pins.
    expect(
      report.pages.flatMap((page) =>
        page.problems.filter((problem) => !problem.code.startsWith('manifest.')),
      ),
    ).toEqual([]);
    // The same pages signed for another address, served on this machine at their signed paths: a local
    // preview (issue 39), valid with the warning address.preview.
    ({ dist } = await signedProject());
    await writeFile(
      join(dist, 'index.html'),
      (await readFile(join(dist, 'index.html'), 'utf8')).replace(
        '</nav>',
        '<a href="/about.html">About</a></nav>',
      ),
    );
    const copies = await verifySite(url);
    expect(copies.valid).toBe(2);
    // The start page's <nav> gained a link after signing: its bytes are not the manifest's (a warning).
    expect(copies.pages.map((page) => codes(page))).toEqual([
      ['address.preview', 'manifest.unchecked', 'manifest.bytes_differ'],
      ['address.preview', 'manifest.unchecked'],
    ]);
  });

  it('checks an event too large for the WebAssembly engine with the JS one (regression: a valid 960 KB event was reported forged)', async () => {
    const { dist } = await createProject({ 'index.html': '' });
    // 960 000 characters of title: content and `alt` tag, past the fixed WebAssembly heap (~945 000 bytes).
    // The page has the same title (the rule book compares it with `alt`: page.title).
    const title = 'T'.repeat(480_000);
    const html = `<!doctype html><title>${title}</title><main><p>large event</p></main>`;
    const template = createPageEvent({ hash: hashPage(html) as string, url: `${SITE}/`, title });
    const event = finalizeEvent(template, generateSecretKey());
    const page = applySignatureBlock(
      html,
      analyzePage(html),
      renderSignatureBlock(event, { verifyUrl: `${SITE}/verify/${event.id}` }),
    );
    await writeFile(join(dist, 'index.html'), page);
    await mkdir(join(dist, 'verify'));
    await writeFile(join(dist, 'verify', `${event.id}.json`), JSON.stringify(event));
    expect((await loadSigningEngine()).name).toBe('wasm');
    const report = await verifySite(dist, { site: SITE });
    expect(report.pages[0]?.problems.map((problem) => problem.code)).toEqual(['manifest.unchecked']);
    expect(report).toMatchObject({ ok: true, valid: 1 });
    // And a forged one is still caught.
    await writeFile(
      join(dist, 'verify', `${event.id}.json`),
      JSON.stringify({ ...event, sig: event.sig.replace(/^./, event.sig[0] === 'a' ? 'b' : 'a') }),
    );
    expect(codes((await verifySite(dist, { site: SITE })).pages[0])).toEqual(['event.signature']);
  });
});
