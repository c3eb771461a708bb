import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { verifyEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, makeTestApp, readFixture, signRequest, uploadForm } from './test-app.js';

interface Expected {
  signs: Record<
    string,
    {
      file_type: string;
      mime_type: string;
      authors: string[];
      title: string | null;
      description?: string;
      dimensions?: { width: number; height: number };
    }
  >;
  rejects: Record<string, { status: number; error: string }>;
}
const expected = JSON.parse(
  readFileSync(new URL('../fixtures/expected.json', import.meta.url), 'utf8'),
) as Expected;

describe('POST /api/sign-image-v2 with the committed fixtures', () => {
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  beforeAll(async () => {
    t = await makeTestApp({ rateLimitPerMinute: 1000 });
  });
  afterAll(async () => t.close());

  for (const [name, want] of Object.entries(expected.signs)) {
    it(`signs ${name}`, async () => {
      const bytes = await readFixture(name);
      const response = await signRequest(t.app, uploadForm(name, bytes));
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(200);
      const hash = createHash('sha256').update(bytes).digest('hex');
      expect(body).toMatchObject({
        success: true,
        hash,
        file_type: want.file_type,
        mime_type: want.mime_type,
        size_bytes: bytes.length,
        metadata: { author: want.authors.join(', '), authors: want.authors, title: want.title },
        published_to: [],
      });
      if (want.description !== undefined) expect(body.metadata.description).toBe(want.description);
      if (want.dimensions) expect(body.dimensions).toEqual(want.dimensions);
      else expect(body.dimensions).toBeUndefined();
      const ext = body.urls.file.split('.').pop();
      expect(body.urls).toMatchObject({
        file: `${BASE_URL}/documents/${hash}.${ext}`,
        static_page: `${BASE_URL}/events/${hash}/index.html`,
        event_page: `${BASE_URL}/verify/${body.event.id}`,
        verify: `${BASE_URL}/verify?hash=${hash}`,
        verify_api: `${BASE_URL}/api/verify?hash=${hash}`,
      });
      const event = body.event;
      expect(verifyEvent(event)).toBe(true);
      expect(event.kind).toBe(1063);
      expect(event.pubkey).toBe(await t.signer.getPublicKey());
      const tag = (key: string) =>
        event.tags.filter((x: string[]) => x[0] === key).map((x: string[]) => x[1]);
      expect(tag('x')).toEqual([hash]);
      expect(tag('ox')).toEqual([hash]);
      expect(tag('m')).toEqual([want.mime_type]);
      expect(tag('size')).toEqual([String(bytes.length)]);
      expect(tag('url')).toEqual([body.urls.file]);
      expect(tag('author')).toEqual(want.authors);
      expect(tag('dim')).toEqual(
        want.dimensions ? [`${want.dimensions.width}x${want.dimensions.height}`] : [],
      );
      expect(tag('alt')[0]).toContain(want.authors.join(', '));
      expect(event.content).toContain(want.authors.join(', '));
      // The stored file is the uploaded bytes.
      const served = await t.app.request(new URL(body.urls.file).pathname);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    });
  }

  for (const [name, want] of Object.entries(expected.rejects)) {
    it(`rejects ${name} with ${want.status} ${want.error}`, async () => {
      const bytes = await readFixture(name);
      const response = await signRequest(t.app, uploadForm(name, bytes));
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(want.status);
      expect(body).toMatchObject({ success: false, error: want.error });
      expect(typeof body.message).toBe('string');
      if (want.error === 'INVALID_FORMAT') expect(body.supported).toContain('application/pdf');
      const hash = createHash('sha256').update(bytes).digest('hex');
      expect((await t.app.request(`/api/verify?hash=${hash}`)).status).toBe(404);
    });
  }

  it('logged no unexpected error while doing all that', () => {
    expect(t.errors).toEqual([]);
  });
});
