// Issue 34 §2: an upload the admission control refuses (503 SERVER_BUSY) gets its answer, never a dropped
// connection. Sixty parallel 24 MiB inspects against the real server process with its default admission
// settings (8 in flight, 128 MiB of bodies, 32 waiting up to 10 s): the 20 that find the queue full are
// refused before a byte of their body is read, while their clients are still sending. Before the fix about
// one client in 60 got ECONNRESET instead (the server closed the socket with their body unread, and the reset
// threw away the 503 before the client had read it).
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type RunningServer, startServer } from './server-process.js';

// Timeouts (docs/testing.md): 60 × 24 MiB over loopback, the waiting ones up to UPLOAD_WAIT_MS (10 s): 25 s
// among parallel files
vi.setConfig({ testTimeout: 90_000 });

const PARALLEL = 60;
const MIB = 24;
const MIB_BYTES = 1024 * 1024;

interface Answer {
  status: number;
  retryAfter: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: tests read deep into the JSON answer
  body: Record<string, any>;
}

/**
 * POST a multipart upload of `parts` with its `Content-Length` over a socket of its own, written one part
 * after another with backpressure; resolves with the complete answer, rejects when the connection fails
 * before the answer has been read to its end. `readWhileSending`: read the answer as it comes, as browsers
 * and Node do; otherwise only once the whole body is sent, as Python's http.client (and requests) and many
 * other simple clients do. `bytesPerSecond`: send no faster, as over a slow uplink.
 */
function upload(
  server: RunningServer,
  name: string,
  parts: Buffer[],
  options: { readWhileSending: boolean; token?: string; bytesPerSecond?: number },
): Promise<Answer> {
  const { readWhileSending, token = server.token, bytesPerSecond } = options;
  const boundary = `b${randomBytes(8).toString('hex')}`;
  const body = [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`),
    ...parts,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ];
  const length = body.reduce((sum, piece) => sum + piece.length, 0);
  const { port } = new URL(server.url);
  const head = [
    'POST /api/inspect HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${token}`,
    `Content-Type: multipart/form-data; boundary=${boundary}`,
    `Content-Length: ${length}`,
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = Buffer.alloc(0);
    const read = () =>
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const answer = parseAnswer(received);
        if (answer === undefined) return;
        socket.destroy();
        resolve(answer);
      });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed after ${received.length} bytes of the answer`)));
    if (readWhileSending) read();
    void (async () => {
      const started = performance.now();
      let sent = 0;
      for (const part of [Buffer.from(head), ...body]) {
        for (let at = 0; at < part.length; at += MIB_BYTES) {
          if (socket.destroyed) return;
          const piece = part.subarray(at, at + MIB_BYTES);
          if (!socket.write(piece))
            await new Promise((done) => socket.once('drain', done).once('close', done));
          sent += piece.length;
          // The client's own pace (a slow uplink), not a wait for the server.
          const due =
            bytesPerSecond === undefined ? 0 : (sent / bytesPerSecond) * 1000 - (performance.now() - started);
          if (due > 0) await new Promise((done) => setTimeout(done, due));
        }
      }
      if (!readWhileSending && !socket.destroyed) read();
    })();
  });
}

/** A complete HTTP answer with a `Content-Length` body in `bytes`, or `undefined` while it is not all there. */
function parseAnswer(bytes: Buffer): Answer | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Map(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  const length = Number(headers.get('content-length'));
  if (bytes.length < end + 4 + length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    retryAfter: headers.get('retry-after'),
    body: JSON.parse(bytes.subarray(end + 4, end + 4 + length).toString('utf8')),
  };
}

describe('uploads refused by the admission control (real server process)', () => {
  let bunker: RunningBunker;
  let server: RunningServer;

  beforeAll(async () => {
    bunker = await useBunker();
    server = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '10000' } });
  });
  afterAll(async () => {
    await server?.stop();
    await bunker?.stop();
  });

  // One shared body of Markdown prose; each file has a head of its own.
  const line = 'Ein Absatz, der sich wiederholt, damit die Datei groß wird. ÄÖÜ äöü ß.\n';
  const body = Buffer.from(line.repeat(Math.ceil((MIB * 1024 * 1024 - 64 * 1024) / Buffer.byteLength(line))));
  const note = (i: number) => [Buffer.from(`---\nauthor: Ann Lee\ntitle: Note ${i}\n---\n`), body];

  it(`${PARALLEL} parallel ${MIB} MiB inspects: every client gets a complete answer, 200 or 503 SERVER_BUSY with Retry-After`, async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: PARALLEL }, (_, i) =>
        upload(server, `note-${i}.md`, note(i), { readWhileSending: i % 2 === 0 }),
      ),
    );
    const failures = outcomes.flatMap((outcome, i) =>
      outcome.status === 'rejected' ? [`upload ${i}: ${(outcome.reason as Error).message}`] : [],
    );
    expect(failures).toEqual([]);
    const answers = outcomes.map((outcome) => (outcome as PromiseFulfilledResult<Answer>).value);
    for (const answer of answers) {
      if (answer.status === 200) {
        expect(answer.body).toMatchObject({ success: true, signable: true });
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(503);
        expect(answer.body).toMatchObject({ success: false, error: 'SERVER_BUSY', retry_after: 5 });
        expect(answer.retryAfter).toBe('5');
      }
    }
    // The queue holds 8 in flight and 32 waiting: at least 20 were refused at once, and some were read.
    expect(answers.filter((answer) => answer.status === 503).length).toBeGreaterThanOrEqual(PARALLEL - 40);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
    // And the server goes on.
    expect((await fetch(`${server.url}/api/verify?hash=${'0'.repeat(64)}`)).status).toBe(404);
    expect(server.child.exitCode).toBeNull();
  });

  it('a wrong token: the 401 reaches a client that sends its 24 MiB over 3 s and reads only then', async () => {
    // The answer comes at once; the connection must outlive the body still coming.
    const answer = await upload(server, 'note.md', note(0), {
      readWhileSending: false,
      token: 'not-a-token',
      bytesPerSecond: 8 * MIB_BYTES,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(401);
    expect(answer.body).toMatchObject({ success: false, error: 'UNAUTHORIZED' });
  });
});
