// Issue 10, acceptance 1 and the standing hostile-input suite, against the real server process (and a real
// bunker): each reproduction gets its clear answer, read within a processor-time budget, and `GET /api/verify`
// keeps answering while hostile uploads are being read.
//
// The files are read in the server's worker threads, never on its event loop; each reproduction is now read
// in 1–300 ms of processor time (measured idle). Before the fix the same files took 1.2 s to over 6 minutes
// each, all of it on the event loop. How fast each is answered and how fast verify answers meanwhile (the
// 2 s and 500 ms this file asserted, which a machine shared with other work can miss without any fault of the
// server) are bench/server/hostile-uploads.mjs's figures, idle and under load side by side. Here: the server's
// own processor-time budget (ANALYSIS_TIMEOUT_MS, 2 s: a reproduction that costs more is answered 422
// `analysis_time` instead of its own answer), every verify answered 200, and ceilings against a hang.
import { readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as hostile from '../../server/test/hostile-files.js';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { type RunningServer, SERVER_FIXTURES, signOverHttp, startServer } from './server-process.js';

// Timeouts (docs/testing.md): hostile uploads through a real server: 26 s among parallel files
vi.setConfig({ testTimeout: 60_000 });

/** What the verify probe reports when stopped (see `verify-probe.mjs`). */
interface ProbeSummary {
  count: number;
  statuses: Record<string, number>;
  slowestMs: number;
  slowestAtMs: number;
  durationMs: number;
}

/** Ask `url` over and over from a thread of its own until `stop()`; resolves `started` at its first answer. */
function startProbe(url: string) {
  const worker = new Worker(new URL('./verify-probe.mjs', import.meta.url), { workerData: { url } });
  const started = new Promise<void>((resolve) => {
    worker.once('message', () => resolve());
  });
  return {
    started,
    stop: () =>
      new Promise<ProbeSummary>((resolve, reject) => {
        worker.on('message', (message: ProbeSummary & { first?: boolean }) => {
          if (message.first !== true) resolve(message);
        });
        worker.once('error', reject);
        worker.postMessage('stop');
      }),
  };
}

/** POST `bytes` as `name` to `/api/{route}` with the server's token; the answer and how long it took. */
async function upload(server: RunningServer, route: string, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  const started = performance.now();
  const post = () =>
    fetch(`${server.url}/api/${route}`, {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${server.token}` },
    });
  let response: Response;
  try {
    response = await post();
  } catch (error) {
    // A pooled keep-alive connection the server closed as idle just as this request was written to it: the
    // write fails (EPIPE, ECONNRESET) before any answer. Browsers send such a request again on a new
    // connection, and so does this client, once; a second failure is the server's and fails the test.
    const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    if (code !== 'EPIPE' && code !== 'ECONNRESET') throw error;
    response = await post().catch((again: Error) => {
      throw new Error(`${name} → ${route}: ${code}, then ${again.message}`, { cause: again });
    });
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read deep into the JSON answer
  const body = (await response.json()) as Record<string, any>;
  return { status: response.status, body, ms: performance.now() - started };
}

/** What each route answers a file: the status and the fields the body must have. */
interface Expected {
  sign: { status: number; body: Record<string, unknown> };
  inspect: { status: number; body: Record<string, unknown> };
}

const noAuthor: Expected = {
  sign: { status: 422, body: { error: 'AUTHOR_REQUIRED' } },
  inspect: { status: 200, body: { signable: false, error: 'AUTHOR_REQUIRED' } },
};
const refused = (limit?: string): Expected => {
  const body = { error: 'INVALID_FORMAT', ...(limit === undefined ? {} : { limit }) };
  return { sign: { status: 422, body }, inspect: { status: 422, body } };
};

describe('hostile uploads against the real server (issue 10)', () => {
  let bunker: RunningBunker;
  let server: RunningServer;
  let verifyUrl: string;

  beforeAll(async () => {
    bunker = await startBunker();
    // The burst below queues 32 uploads behind the 8 admitted at once: a long UPLOAD_WAIT_MS keeps a slow,
    // shared machine from turning the wait into 503 SERVER_BUSY (which the admission test covers).
    // ANALYSIS_TIMEOUT_MS: 2 s of processor time per file (10× that, 20 s, on the clock), where the default is 5 s.
    server = await startServer({
      bunker,
      env: { SIGN_RATE_LIMIT: '10000', UPLOAD_WAIT_MS: '60000', ANALYSIS_TIMEOUT_MS: '2000' },
    });
    const png = await readFile(join(SERVER_FIXTURES, 'png-author.png'));
    const signed = await signOverHttp(server, 'png-author.png', png);
    expect(signed.status).toBe(200);
    verifyUrl = `${server.url}/api/verify?hash=${signed.body.hash}`;
  });
  afterAll(async () => {
    await server?.stop();
    await bunker?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('answers each reproduction clearly within its processor-time budget while /api/verify answers throughout', async () => {
    const reproductions: Array<[hostile.HostileFile, Expected]> = [
      [hostile.pdfObjectStreamBomb(), noAuthor],
      [hostile.pdfObjectStreamBomb(400, 1024 * 1024), noAuthor],
      [hostile.markdownSpacedHeading(), noAuthor],
      [hostile.gifManyXmpExtensions(), refused()],
      [hostile.pdfWithoutEndstream(), refused('pdf_object_streams')],
    ];
    const probe = startProbe(verifyUrl);
    await probe.started;
    const timings: string[] = [];
    for (const [file, expected] of reproductions) {
      for (const route of ['sign-image-v2', 'inspect'] as const) {
        const { status, body, ms } = await upload(server, route, file.name, file.bytes);
        const want = route === 'inspect' ? expected.inspect : expected.sign;
        const label = `${file.symptom} → ${route}`;
        expect(status, `${label}: ${JSON.stringify(body)}`).toBe(want.status);
        // Its own answer (not 422 `analysis_time`): read within 2 s of processor time.
        expect(body, label).toMatchObject(want.body);
        expect(body.limit, label).not.toBe('analysis_time');
        // A ceiling against a hang, past the server's own 20 s clock cap on reading a file.
        expect(ms, label).toBeLessThan(30_000);
        timings.push(`${label}: ${status} in ${Math.round(ms)} ms`);
      }
    }
    const summary = await probe.stop();
    if (process.env.SIEGEL_PRINT_TIMINGS) console.log(`${timings.join('\n')}\n${JSON.stringify(summary)}`);
    expect(summary.statuses, JSON.stringify(summary)).toEqual({ 200: summary.count });
    // A ceiling against a hang, ten times the 500 ms goal: a file read on the event loop held it for seconds
    // to minutes. The latencies themselves are bench/server/hostile-uploads.mjs's.
    expect(summary.slowestMs, `${JSON.stringify(summary)}\n${timings.join('\n')}`).toBeLessThan(5_000);
    expect(summary.count).toBeGreaterThan(20);
    expect(server.child.exitCode).toBeNull();
  });

  it('keeps answering verify under a burst of every hostile class at once, with no 5xx', async () => {
    const files = hostile.everyHostileClass();
    const probe = startProbe(verifyUrl);
    await probe.started;
    const answers = await Promise.all(
      files.flatMap((file) =>
        (['sign-image-v2', 'inspect'] as const).map(async (route) => ({
          label: `${file.name} → ${route}`,
          ...(await upload(server, route, file.name, file.bytes)),
        })),
      ),
    );
    const summary = await probe.stop();
    if (process.env.SIEGEL_PRINT_TIMINGS) {
      console.log(answers.map((a) => `${a.label}: ${a.status} in ${Math.round(a.ms)} ms`).join('\n'));
      console.log(JSON.stringify(summary));
    }
    for (const { label, status, body } of answers) {
      expect(status, `${label}: ${JSON.stringify(body)}`).toBeLessThan(500);
      if (status >= 400) expect(typeof body.message, label).toBe('string');
    }
    expect(summary.statuses, JSON.stringify(summary)).toEqual({ 200: summary.count });
    // A ceiling against a hang, ten times the 500 ms goal (see the first test).
    expect(summary.slowestMs, JSON.stringify(summary)).toBeLessThan(5_000);
    expect(server.child.exitCode).toBeNull();
    expect(server.output(), server.output()).not.toMatch(/Internal|Error:/);
    // The burst's 36 uploads, 8 admitted at once, took 5 s idle and 20 s on a loaded 2-core machine: a
    // ceiling against a hang of several times that.
  }, 120_000);

  it('answers an upload without a valid token at once, before its body is sent', async () => {
    for (const route of ['inspect', 'sign-image-v2']) {
      const answer = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
        const req = request(`${server.url}/api/${route}`, {
          method: 'POST',
          headers: { 'Content-Type': 'multipart/form-data; boundary=b', 'Transfer-Encoding': 'chunked' },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on('end', () => {
            resolve({ status: res.statusCode, body });
            req.destroy();
          });
        });
        req.on('error', reject);
        // One chunk of a body that is never finished: only an answer that does not wait for it arrives.
        req.write(Buffer.alloc(64 * 1024, 0x61));
      });
      expect(answer.status, route).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ success: false, error: 'UNAUTHORIZED' });
    }
  });
});
