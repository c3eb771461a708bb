import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../src/http/api-error.js';
import { UploadAdmission } from '../src/http/middleware/admission.js';
import { makeTestApp, readFixture, TOKEN } from './test-app.js';

/** What a settled promise came to: `admitted` (with its release) or the error's code. */
async function outcome(promise: Promise<() => void>): Promise<string> {
  return promise.then(
    () => 'admitted',
    (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
  );
}

describe('UploadAdmission: uploads in flight and bytes buffered', () => {
  it('admits up to maxInFlight uploads, then refuses with SERVER_BUSY when nothing may wait', async () => {
    const admission = new UploadAdmission({ maxInFlight: 2, maxBufferedBytes: 1000, maxWaitMs: 0 });
    const first = await admission.acquire(10);
    await admission.acquire(10);
    await expect(outcome(admission.acquire(10))).resolves.toBe('SERVER_BUSY');
    first();
    first(); // a second release of the same upload changes nothing
    expect(admission.usage).toEqual({ inFlight: 1, bufferedBytes: 10, waiting: 0 });
    await expect(outcome(admission.acquire(10))).resolves.toBe('admitted');
  });

  it('counts the bytes each upload reserves against maxBufferedBytes', async () => {
    const admission = new UploadAdmission({ maxInFlight: 10, maxBufferedBytes: 100, maxWaitMs: 0 });
    const big = await admission.acquire(70);
    await expect(outcome(admission.acquire(40))).resolves.toBe('SERVER_BUSY');
    await expect(outcome(admission.acquire(30))).resolves.toBe('admitted');
    big();
    await expect(outcome(admission.acquire(40))).resolves.toBe('admitted');
    expect(admission.usage.bufferedBytes).toBe(70);
    // One larger than the whole budget reserves the whole budget (it would never fit otherwise).
    const alone = new UploadAdmission({ maxInFlight: 10, maxBufferedBytes: 100, maxWaitMs: 0 });
    await alone.acquire(1000);
    expect(alone.usage.bufferedBytes).toBe(100);
  });

  it('lets uploads wait, in order, and admits them as room frees; a wait past maxWaitMs is refused', async () => {
    const admission = new UploadAdmission({ maxInFlight: 1, maxBufferedBytes: 100, maxWaitMs: 300 });
    const release = await admission.acquire(50);
    const order: string[] = [];
    const second = admission.acquire(50).then((done) => {
      order.push('second');
      return done;
    });
    const third = admission.acquire(50).then((done) => {
      order.push('third');
      return done;
    });
    expect(admission.usage.waiting).toBe(2);
    release();
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    const held = await admission.acquire(50);
    await expect(outcome(admission.acquire(50))).resolves.toBe('SERVER_BUSY'); // after 300 ms
    held();
    expect(admission.usage).toEqual({ inFlight: 0, bufferedBytes: 0, waiting: 0 });
  });

  it('refuses at once when maxWaiting uploads wait already, and withdraws one whose client left', async () => {
    const admission = new UploadAdmission({
      maxInFlight: 1,
      maxBufferedBytes: 100,
      maxWaitMs: 10_000,
      maxWaiting: 1,
    });
    const release = await admission.acquire(1);
    const leaving = new AbortController();
    const waiting = outcome(admission.acquire(1, leaving.signal));
    await expect(outcome(admission.acquire(1))).resolves.toBe('SERVER_BUSY');
    leaving.abort();
    await expect(waiting).resolves.toBe('SERVER_BUSY');
    expect(admission.usage.waiting).toBe(0);
    release();
  });

  it('refuses settings that are not positive, quoting them', () => {
    expect(() => new UploadAdmission({ maxInFlight: 0, maxBufferedBytes: 1, maxWaitMs: 0 })).toThrow('`0`');
    expect(() => new UploadAdmission({ maxInFlight: 1, maxBufferedBytes: 1, maxWaitMs: -1 })).toThrow('`-1`');
  });
});

/** A multipart upload whose body is sent in two parts: the head now, the rest when `finish()` is called. */
function heldUpload(name: string, bytes: Uint8Array) {
  const boundary = 'held-boundary';
  const head = new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`,
  );
  const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(head);
    },
  });
  return {
    init: {
      method: 'POST',
      body,
      duplex: 'half',
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        Authorization: `Bearer ${TOKEN}`,
      },
    } as RequestInit,
    finish() {
      controller.enqueue(bytes);
      controller.enqueue(tail);
      controller.close();
    },
  };
}

function form(name: string, bytes: Uint8Array, token = TOKEN): RequestInit {
  const data = new FormData();
  data.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  return { method: 'POST', body: data, headers: token === '' ? {} : { Authorization: `Bearer ${token}` } };
}

describe('the upload gate of the app: one budget for sign and inspect', () => {
  const apps: Awaited<ReturnType<typeof makeTestApp>>[] = [];
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
  });

  it('answers 503 SERVER_BUSY with Retry-After past the uploads in flight, on both routes (issue 10)', async () => {
    const t = await makeTestApp({ maxUploadsInFlight: 1, uploadWaitMs: 0 });
    apps.push(t);
    const png = await readFixture('png-author.png');
    const held = heldUpload('held.png', png);
    const first = t.app.request('/api/inspect', held.init);
    // The held upload is in flight (its body half sent): the next one, sign or inspect, is refused.
    for (const path of ['/api/inspect', '/api/sign-image-v2']) {
      const busy = await t.app.request(path, form('other.png', png));
      expect(busy.status, path).toBe(503);
      expect(busy.headers.get('Retry-After')).toBe('5');
      expect(await busy.json()).toMatchObject({ success: false, error: 'SERVER_BUSY', retry_after: 5 });
    }
    held.finish();
    const answered = await first;
    expect(answered.status).toBe(200);
    expect((await answered.json()).metadata.authors).toEqual(['Jürgen Müller']);
    // Room again.
    expect((await t.app.request('/api/inspect', form('again.png', png))).status).toBe(200);
  });

  it('lets an upload wait for room (UPLOAD_WAIT_MS) instead of refusing it', async () => {
    const t = await makeTestApp({ maxUploadsInFlight: 1, uploadWaitMs: 10_000 });
    apps.push(t);
    const png = await readFixture('png-author.png');
    const held = heldUpload('held.png', png);
    const first = t.app.request('/api/inspect', held.init);
    const second = t.app.request('/api/inspect', form('second.png', png));
    setTimeout(() => held.finish(), 100);
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
  });

  it('shares one rate limit between sign and inspect (the README says so; issue 10 found two)', async () => {
    const t = await makeTestApp({ rateLimitPerMinute: 3 });
    apps.push(t);
    const jpeg = await readFixture('jpeg-no-author.jpg');
    expect((await t.app.request('/api/inspect', form('a.jpg', jpeg))).status).toBe(200);
    expect((await t.app.request('/api/inspect', form('b.jpg', jpeg))).status).toBe(200);
    expect((await t.app.request('/api/sign-image-v2', form('c.jpg', jpeg))).status).toBe(422);
    const limited = await t.app.request('/api/sign-image-v2', form('d.jpg', jpeg));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect((await t.app.request('/api/inspect', form('e.jpg', jpeg))).status).toBe(429);
  });

  it('refuses an upload without a valid token before reading its body', async () => {
    const t = await makeTestApp();
    apps.push(t);
    for (const route of ['/api/inspect', '/api/sign-image-v2']) {
      for (const authorization of [undefined, 'Bearer wrong-token']) {
        const held = heldUpload('never.png', new Uint8Array(16));
        const headers = held.init.headers as Record<string, string>;
        if (authorization === undefined) delete headers.Authorization;
        else headers.Authorization = authorization;
        // The body never ends: only an answer given before reading it can arrive.
        const response = await t.app.request(route, held.init);
        expect(response.status, `${route} ${authorization}`).toBe(401);
        expect((await response.json()).error).toBe('UNAUTHORIZED');
      }
    }
  });
});
