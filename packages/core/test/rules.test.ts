// The rule book itself (issue 21): a pure function of what a verifier found. The cross-verifier table runs
// in test/verify-page/rule-book-chromium.test.ts; here, the rules one by one and the docs that explain them.
import { readFile } from 'node:fs/promises';
import { finalizeEvent } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import { analyzePage, createPageEvent, type NostrEvent } from '../src/index.js';
import type { PageSpec } from '../src/page/parse.js';
import {
  createProblem,
  decideVerdict,
  describeCoverage,
  isSameAddress,
  judgePage,
  normalizeAddress,
  PROBLEM_CODES,
} from '../src/verify/rules.js';

const KEY = Uint8Array.from(Buffer.from('6'.repeat(64), 'hex'));
const HTML = '<!doctype html><title>T</title><main><p>Signed words</p></main>';
const URL_ = 'https://example.com/blog/x/';

function signed(overrides: Partial<ReturnType<typeof createPageEvent>> = {}): NostrEvent {
  const hash = analyzePage(HTML).hash as string;
  return finalizeEvent(
    { ...createPageEvent({ hash, url: URL_, title: 'T', createdAt: 1_767_225_600 }), ...overrides },
    KEY,
  );
}

function judge(event: NostrEvent, extra: Partial<Parameters<typeof judgePage>[0]> = {}) {
  const result = judgePage({
    readPage: (spec) => analyzePage(HTML, { spec }),
    block: { eventId: event.id, pubkey: event.pubkey, hash: analyzePage(HTML).hash as string },
    event: { found: event },
    address: URL_,
    ...extra,
  });
  return [result.verdict, ...result.problems.map((problem) => problem.code)];
}

describe('judgePage', () => {
  it('is valid for the signed page at its address, and names what it read', () => {
    const event = signed();
    expect(judge(event)).toEqual(['valid']);
    const result = judgePage({
      readPage: (spec) => analyzePage(HTML, { spec }),
      block: {},
      event: { found: event },
      address: URL_,
    });
    expect(result).toMatchObject({
      spec: 'siegel-page/2',
      hash: analyzePage(HTML).hash,
      event: { id: event.id },
    });
  });

  it('binds the address: the forms one file is served under are one address, others are not', () => {
    const event = signed();
    for (const same of [
      'https://example.com/blog/x/index.html',
      'https://EXAMPLE.com:443/blog/x/?utm=1#top',
      'https://example.com/blog/%78/',
    ])
      expect(judge(event, { address: same }), same).toEqual(['valid']);
    for (const other of [
      'https://example.com/blog/y/',
      'http://example.com/blog/x/',
      'https://example.com:8443/blog/x/',
    ])
      expect(judge(event, { address: other }), other).toEqual(['invalid', 'event.url']);
    expect(judge(event, { address: undefined })).toEqual(['valid', 'address.unchecked']);
    expect(isSameAddress('https://example.com/p.html', 'https://example.com/p')).toBe(true);
    expect(isSameAddress('https://example.com/%C3%BC', 'https://example.com/ü')).toBe(true);
    expect(normalizeAddress('not a url')).toBeUndefined();
  });

  it('accepts a mirror address the event names in a `fallback` tag, in any form served, and nothing else', () => {
    const hash = analyzePage(HTML).hash as string;
    const event = finalizeEvent(
      createPageEvent({
        hash,
        url: URL_,
        fallbacks: ['https://mirror.example.org/blog/x/', 'https://example.net/copy/blog/x/'],
        title: 'T',
        createdAt: 1_767_225_600,
      }),
      KEY,
    );
    expect(event.tags.filter((tag) => tag[0] === 'fallback')).toEqual([
      ['fallback', 'https://mirror.example.org/blog/x/'],
      ['fallback', 'https://example.net/copy/blog/x/'],
    ]);
    for (const same of [
      URL_,
      'https://mirror.example.org/blog/x/index.html',
      'https://example.net:443/copy/blog/x/',
    ])
      expect(judge(event, { address: same }), same).toEqual(['valid']);
    for (const other of [
      'https://third.example/blog/x/',
      'https://mirror.example.org/copy/blog/x/',
      'https://example.net/blog/x/',
    ])
      expect(judge(event, { address: other }), other).toEqual(['invalid', 'event.url']);
    const problem = judgePage({
      readPage: (spec) => analyzePage(HTML, { spec }),
      event: { found: event },
      block: { eventId: event.id },
      address: 'https://third.example/blog/x/',
    }).problems[0];
    // Without a `url`, a `fallback` alone names no address.
    const noUrl = finalizeEvent({ ...event, tags: event.tags.filter((tag) => tag[0] !== 'url') }, KEY);
    expect(judge(noUrl, { address: 'https://mirror.example.org/blog/x/' })).toEqual(['invalid', 'event.url']);
    expect(problem?.message).toBe(
      'signed for `https://example.com/blog/x/` (or its 2 mirror addresses), but the page was found at `https://third.example/blog/x/`',
    );
  });

  it('a page on this machine (loopback) at the signed path or a mirror’s is a local preview: valid, with a note (issue 39)', () => {
    const hash = analyzePage(HTML).hash as string;
    const event = finalizeEvent(
      createPageEvent({
        hash,
        url: URL_,
        fallbacks: ['https://mirror.example.org/copy/blog/x/'],
        title: 'T',
        createdAt: 1_767_225_600,
      }),
      KEY,
    );
    for (const preview of [
      'http://127.0.0.1:4321/blog/x/',
      'https://127.8.9.10/blog/x/index.html',
      'http://[::1]:8080/blog/x/',
      'http://localhost:3000/blog/%78/',
      'http://localhost:4321/copy/blog/x/', // the mirror's path
    ])
      expect(judge(event, { address: preview }), preview).toEqual(['valid', 'address.preview']);
    for (const other of [
      'http://127.0.0.1:4321/blog/y/', // another path
      'http://127.0.0.1:4321/', // another path
      'http://10.0.0.5:4321/blog/x/', // the LAN: another machine
      'http://192.168.1.5/blog/x/',
      'http://172.16.0.1/blog/x/',
      'http://[fe80::1]/blog/x/',
      'http://box.local/blog/x/',
      'https://evil.example/blog/x/',
    ])
      expect(judge(event, { address: other }), other).toEqual(['invalid', 'event.url']);
    const problem = judgePage({
      readPage: (spec) => analyzePage(HTML, { spec }),
      event: { found: event },
      block: { eventId: event.id },
      address: 'http://[::1]:8080/blog/x/',
    }).problems[0];
    expect(problem).toEqual({
      code: 'address.preview',
      severity: 'warning',
      message:
        'this is a local preview: found at `http://[::1]:8080/blog/x/` on this machine, signed for `https://example.com/blog/x/` (the same path)',
    });
  });

  it('checks the event against the block and the expected signer', () => {
    const event = signed();
    const other = finalizeEvent(
      { ...event, tags: event.tags },
      Uint8Array.from(Buffer.from('8'.repeat(64), 'hex')),
    );
    expect(judge(event, { block: { eventId: other.id, pubkey: event.pubkey } })).toEqual([
      'invalid',
      'event.not_named',
    ]);
    expect(judge(event, { block: { eventId: event.id, pubkey: other.pubkey } })).toEqual([
      'invalid',
      'signer.unexpected',
    ]);
    expect(judge(event, { expected: { pubkey: other.pubkey, nip05: 'bob@example.com' } })).toEqual([
      'invalid',
      'signer.unexpected',
    ]);
    // Someone else's event for the same hash, on the page's own verify page: refused, and said so.
    const borrowed = judgePage({
      readPage: (spec) => analyzePage(HTML, { spec }),
      block: { eventId: event.id, pubkey: event.pubkey },
      event: { found: other },
      address: URL_,
    });
    expect(borrowed.problems.map((problem) => problem.code)).toEqual([
      'event.not_named',
      'signer.unexpected',
    ]);
    expect(borrowed.problems[0]?.message).toBe(
      `\`${other.id}\` is not the signature this page names (it names \`${event.id}\` by \`${event.pubkey}\`)`,
    );
    expect(judge(event, { block: undefined })).toEqual(['invalid', 'block.missing']);
    expect(judge(event, { block: { pubkey: event.pubkey } })).toEqual(['invalid', 'block.no_event']);
  });

  it('checks the event itself: shape, id, signature, kind, spec', () => {
    const event = signed();
    expect(judge({ ...event, content: 'other' })).toEqual(['invalid', 'event.id']);
    expect(judge({ ...event, sig: event.sig.replace(/^./, event.sig[0] === 'a' ? 'b' : 'a') })).toEqual([
      'invalid',
      'event.signature',
    ]);
    expect(judge(signed({ kind: 1 }))).toEqual(['invalid', 'event.kind']);
    const noX = signed({ tags: signed().tags.filter((tag) => tag[0] !== 'x') });
    expect(judge(noX)).toEqual(['invalid', 'event.kind']);
    expect(
      judge(
        signed({ tags: [...signed().tags.filter((tag) => tag[0] !== 'spec'), ['spec', 'siegel-page/9']] }),
      ),
    ).toEqual(['invalid', 'event.spec']);
    expect(judge({ ...event, tags: 'no' } as unknown as NostrEvent)).toEqual(['invalid', 'event.malformed']);
  });

  it('tells an outage from tampering: not_found only when nothing else is wrong', () => {
    const event = signed();
    const block = {
      eventId: event.id,
      pubkey: event.pubkey,
      hash: event.tags.find((t) => t[0] === 'x')?.[1],
    };
    const missing = { missing: 'no copy, no relay' };
    const read = (html: string) => (spec: PageSpec) => analyzePage(html, { spec });
    expect(judge(event, { event: missing, block })).toEqual(['not_found', 'event.not_found']);
    // The page no longer matches the hash its own block states: invalid, even without the event.
    const edited = '<!doctype html><title>T</title><main><p>Signed wordz</p></main>';
    expect(judge(event, { event: missing, block, readPage: read(edited) })).toEqual([
      'invalid',
      'event.not_found',
      'block.hash',
    ]);
    expect(decideVerdict([createProblem('page.unavailable', 'x')])).toBe('not_found');
    expect(decideVerdict([createProblem('address.unchecked', 'x')])).toBe('valid');
    expect(decideVerdict([createProblem('page.unavailable', 'x'), createProblem('event.kind', 'y')])).toBe(
      'invalid',
    );
  });

  it('reads the page by the event’s spec and reports what the page cannot carry', () => {
    const event = signed();
    const two = '<!doctype html><title>T</title><main><p>Signed words</p></main><main>b</main>';
    expect(judge(event, { readPage: (spec) => analyzePage(two, { spec }) })).toEqual([
      'invalid',
      'page.multiple',
    ]);
    const none = '<!doctype html><title>T</title><div>no main</div>';
    expect(judge(event, { readPage: (spec) => analyzePage(none, { spec }) })).toEqual([
      'invalid',
      'page.no_element',
    ]);
    const hidden = '<!doctype html><title>T</title><main hidden><p>Signed words</p></main>';
    expect(judge(event, { readPage: (spec) => analyzePage(hidden, { spec }) })).toEqual([
      'invalid',
      'page.not_shown',
    ]);
  });
});

describe('docs/verification.md', () => {
  it('documents every problem code with its severity, and names no code the rule book lacks', async () => {
    const doc = await readFile(new URL('../../../docs/verification.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z]+\.[a-z_]+)` \| (error|warning)/gm)].map((match) => [
      match[1],
      match[2],
    ]);
    expect(Object.fromEntries(rows)).toEqual(
      Object.fromEntries(Object.entries(PROBLEM_CODES).map(([code, info]) => [code, info.severity])),
    );
  });

  it('says what "valid" covers in the same words as every verifier, and so does SPEC.md', async () => {
    const sentence = describeCoverage();
    expect(sentence).toContain('`main`');
    expect(sentence).toMatch(/stylesheets/);
    for (const file of ['../../../docs/verification.md', '../SPEC.md'])
      expect(await readFile(new URL(file, import.meta.url), 'utf8')).toContain(`> ${sentence}\n`);
  });
});
