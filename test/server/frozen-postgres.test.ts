// Issue 34 §2: a frozen PostgreSQL (every one of its processes stopped with SIGSTOP, as a hung host or a VM
// paused by its hypervisor leaves it) answers nothing, yet keeps its sockets open and its kernel accepts new
// connections: no connection error ever comes, and a frozen server cannot enforce its own
// `statement_timeout`. Before the fix every request that read a record waited for as long as the freeze
// lasted (20 s for a 15 s SIGSTOP); now each is answered 503 STORE_UNAVAILABLE once DATABASE_TIMEOUT_MS has
// passed, and the same server process works again once the database goes on (SIGCONT). Against the real
// server process on a private PostgreSQL cluster.
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { type PostgresCluster, startPostgresCluster } from '../support/postgres-cluster.js';
import { type RunningServer, startServer } from './server-process.js';

// Timeouts (docs/testing.md): a cluster, a server, two rounds of requests against the frozen database (2 s
// bound each) and the recovery: 20 s among parallel files
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

/** The bound the server is given (DATABASE_TIMEOUT_MS). */
const BOUND_MS = 2_000;
/**
 * A ceiling against a hang, not a speed goal: the bound, plus room for the request's own work on a loaded
 * machine. Well under the time the database stays frozen, so an answer that waited for it fails.
 */
const CEILING_MS = BOUND_MS + 6_000;

const encoder = new TextEncoder();
const markdown = (label: string) =>
  encoder.encode(`---\nauthor: Ann Lee\ntitle: ${label}\n---\n# ${label}\n`);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let cluster: PostgresCluster | undefined;
let bunker: RunningBunker | undefined;
let server: RunningServer | undefined;

beforeAll(async () => {
  [cluster, bunker] = await Promise.all([startPostgresCluster(), useBunker()]);
  const databaseUrl = await cluster.createDatabase('frozen');
  server = await startServer({
    bunker,
    env: { DATABASE_URL: databaseUrl, DATABASE_TIMEOUT_MS: String(BOUND_MS), SIGN_RATE_LIMIT: '1000' },
  });
});
// A failing test must never leave a frozen cluster behind (it could not be stopped).
afterEach(() => cluster?.thaw());
afterAll(async () => {
  cluster?.thaw();
  await server?.stop();
  await Promise.all([cluster?.destroy(), bunker?.stop()]);
});

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read deep into the JSON answer
  body: any;
  retryAfter: string | null;
  ms: number;
}

/** `path` on the server (a sign when `upload` is given), given up after CEILING_MS; the answer and its time. */
async function ask(path: string, upload?: { name: string; bytes: Uint8Array }): Promise<Answer> {
  const running = server as RunningServer;
  let init: RequestInit = {};
  if (upload !== undefined) {
    const form = new FormData();
    form.append('file', new Blob([upload.bytes as Uint8Array<ArrayBuffer>]), upload.name);
    init = { method: 'POST', body: form, headers: { Authorization: `Bearer ${running.token}` } };
  }
  const started = performance.now();
  const response = await fetch(`${running.url}${path}`, { ...init, signal: AbortSignal.timeout(CEILING_MS) });
  const text = await response.text();
  return {
    status: response.status,
    body: text.startsWith('{') ? JSON.parse(text) : text,
    retryAfter: response.headers.get('retry-after'),
    ms: performance.now() - started,
  };
}

const sign = (label: string) =>
  ask('/api/sign-image-v2', { name: `${label.replace(/\W+/g, '-')}.md`, bytes: markdown(label) });

describe('a frozen PostgreSQL (SIGSTOP) under the real server process', () => {
  it('every request is answered 503 STORE_UNAVAILABLE within the bound; after SIGCONT the same process recovers', async () => {
    const signed = await sign('before the freeze');
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const hash = signed.body.hash as string;
    expect((await ask(`/api/verify?hash=${hash}`)).body.verified).toBe(true);
    expect((await ask(`/${hash}`)).status).toBe(200);

    (cluster as PostgresCluster).freeze();
    try {
      // Twice: the first round finds the pool's connections silent, the second connects anew to the frozen
      // server (its kernel accepts; the server never answers the login).
      for (const round of [1, 2]) {
        const answers = await Promise.all([
          ask(`/api/verify?hash=${hash}`),
          ask(`/api/verify?hash=${sha256(markdown(`unknown ${round}`))}`),
          ask(`/${hash}`),
          sign(`during the freeze ${round}`),
        ]);
        for (const answer of answers) {
          const where = `round ${round}: ${JSON.stringify(answer.body)}`;
          expect(answer.status, where).toBe(503);
          expect(answer.body.error, where).toBe('STORE_UNAVAILABLE');
          // Past the bound (`did not answer within 2000 ms`), or its pool abandoned by another call past it,
          // or a login that timed out.
          expect(answer.body.message, where).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+/);
          expect(Number(answer.retryAfter), where).toBeGreaterThan(0);
          // Not before the bound: the database was given its time.
          expect(answer.ms, where).toBeGreaterThanOrEqual(BOUND_MS - 50);
        }
      }
      expect(server?.child.exitCode).toBeNull();
    } finally {
      (cluster as PostgresCluster).thaw();
    }

    // The same process, no restart: verify, serve and sign again.
    await eventually(async () => (await ask(`/api/verify?hash=${hash}`)).status === 200, 20_000, 200);
    expect((await ask(`/api/verify?hash=${hash}`)).body.verified).toBe(true);
    expect((await ask(`/${hash}`)).status).toBe(200);
    const after = await sign('after the freeze');
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect((await ask(`/api/verify?hash=${after.body.hash}`)).body.verified).toBe(true);
    expect(server?.child.exitCode).toBeNull();
  });
});
