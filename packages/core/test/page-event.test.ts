import { validateEvent } from 'nostr-tools/nip94';
import { finalizeEvent, generateSecretKey, verifyEvent } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import { createPageEvent, PAGE_EVENT_KIND, pageUrl, SiegelError } from '../src/index.js';

const hash = '0f'.repeat(32);

describe('pageUrl', () => {
  it('maps directory indexes to …/path/ and keeps other files', () => {
    expect(pageUrl('https://example.com', 'blog/x/index.html')).toBe('https://example.com/blog/x/');
    expect(pageUrl('https://example.com', 'index.html')).toBe('https://example.com/');
    expect(pageUrl('https://example.com', 'about.html')).toBe('https://example.com/about.html');
    expect(pageUrl('https://example.com', 'blog/index.html.bak/page.html')).toBe(
      'https://example.com/blog/index.html.bak/page.html',
    );
  });

  it('accepts the site with or without a trailing slash, and with a base path', () => {
    expect(pageUrl('https://example.com/', 'a/index.html')).toBe('https://example.com/a/');
    expect(pageUrl('https://example.com/docs/', 'index.html')).toBe('https://example.com/docs/');
    expect(pageUrl('https://example.com/docs', 'a.html')).toBe('https://example.com/docs/a.html');
    expect(pageUrl('http://127.0.0.1:4321', './a/index.html')).toBe('http://127.0.0.1:4321/a/');
  });

  it('percent-encodes unsafe path characters and accepts Windows separators', () => {
    expect(pageUrl('https://example.com', 'über uns.html')).toBe('https://example.com/%C3%BCber%20uns.html');
    expect(pageUrl('https://example.com', 'a#b?c%d.html')).toBe('https://example.com/a%23b%3Fc%25d.html');
    expect(pageUrl('https://example.com', "keep:@$&+,;=!'()*.html")).toBe(
      "https://example.com/keep:@$&+,;=!'()*.html",
    );
    expect(pageUrl('https://example.com', 'blog\\x\\index.html')).toBe('https://example.com/blog/x/');
  });

  it('rejects a site that is not an absolute http(s) URL, quoting it', () => {
    expect(() => pageUrl('example.com', 'a.html')).toThrow(SiegelError);
    expect(() => pageUrl('example.com', 'a.html')).toThrow(/`example.com`/);
    expect(() => pageUrl('ftp://example.com', 'a.html')).toThrow(/`ftp:\/\/example.com`/);
  });
});

describe('createPageEvent', () => {
  it('builds the NIP-94 kind 1063 event of docs/signature-block.md', () => {
    const template = createPageEvent({
      hash,
      url: 'https://example.com/a/',
      title: ' A title ',
      description: 'About A',
      createdAt: 1_700_000_000,
    });
    expect(template).toEqual({
      kind: PAGE_EVENT_KIND,
      created_at: 1_700_000_000,
      content: 'A title',
      tags: [
        ['url', 'https://example.com/a/'],
        ['m', 'text/html'],
        ['x', hash],
        ['ox', hash],
        ['spec', 'siegel-page/2'],
        ['summary', 'About A'],
        ['alt', 'A title'],
      ],
    });
  });

  it('uses the URL as content when there is no title, and omits empty summary/alt', () => {
    const template = createPageEvent({
      hash,
      url: 'https://example.com/b.html',
      title: '  ',
      description: '',
    });
    expect(template.content).toBe('https://example.com/b.html');
    expect(template.tags.map((tag) => tag[0])).toEqual(['url', 'm', 'x', 'ox', 'spec']);
    expect(Math.abs(template.created_at - Date.now() / 1000)).toBeLessThan(5);
  });

  it('signs into an event that nostr-tools nip94.validateEvent and verifyEvent accept', () => {
    for (const title of ['Title', undefined]) {
      const event = finalizeEvent(
        createPageEvent({ hash, url: 'https://example.com/', title }),
        generateSecretKey(),
      );
      expect(validateEvent(event)).toBe(true);
      expect(verifyEvent(event)).toBe(true);
    }
  });

  it('rejects a hash that is not 64 lowercase hex and an empty URL', () => {
    expect(() => createPageEvent({ hash: 'sha256:abc', url: 'https://e.com/' })).toThrow(/`sha256:abc`/);
    expect(() => createPageEvent({ hash: hash.toUpperCase(), url: 'https://e.com/' })).toThrow(SiegelError);
    expect(() => createPageEvent({ hash, url: '' })).toThrow(SiegelError);
  });
});
