// Several server processes on one PostgreSQL and one S3 server (issue 27): one truth across instances — a
// file signed on A verifies on B at once; parallel uploads of one file over both give one record; A killed
// mid-upload leaves nothing half-written after the next sweep and B goes on (delivering what A queued); a
// database that is down at start, or goes away later, is told plainly and survived.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PUBLISHING_DEFAULTS } from '../../server/src/publishing/relay-publishing.js';
import { type FileStorage, isStorageKey } from '../../server/src/storage/file-storage.js';
import { PostgresRecordStore } from '../../server/src/storage/postgres-record-store.js';
import { S3Storage } from '../../server/src/storage/s3-storage.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { type PostgresCluster, startPostgresCluster } from '../support/postgres-cluster.js';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';
import { type RunningS3Server, startS3Server } from '../support/s3-server.js';
import { type RunningServer, signOverHttp, startServer } from './server-process.js';

// Timeouts (docs/testing.md): PostgreSQL, S3 and several servers: 18 s among parallel files; the kill -9 test
// waits for a relay retry as long as the relay was down (its backoff doubles), 50 s under load in a clean clone
vi.setConfig({ testTimeout: 120_000 });

const encoder = new TextEncoder();
const markdown = (label: string) =>
  encoder.encode(`---\nauthor: Ann Lee\ntitle: ${label}\n---\n# ${label}\n`);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let cluster: PostgresCluster;
let s3: RunningS3Server;
let bunker: RunningBunker;
const servers: RunningServer[] = [];
const relays: RunningRelay[] = [];

beforeAll(async () => {
  [cluster, s3, bunker] = await Promise.all([startPostgresCluster(), startS3Server(), useBunker()]);
}, 120_000);
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await Promise.all(relays.map((relay) => relay.stop()));
  await Promise.all([cluster?.destroy(), s3?.destroy(), bunker?.stop()]);
});

/** The settings of an instance on the shared PostgreSQL database `databaseUrl` and the S3 bucket under `prefix`. */
function sharedEnv(databaseUrl: string, prefix: string, extra: Record<string, string> = {}) {
  return {
    DATABASE_URL: databaseUrl,
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: s3.region,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: prefix,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    ...extra,
  };
}

async function instance(env: Record<string, string>): Promise<RunningServer> {
  const server = await startServer({ bunker, env });
  servers.push(server);
  return server;
}

/** The same server token on every instance (a load balancer does not care which one answers). */
async function pairOf(databaseUrl: string, prefix: string, extra: Record<string, string> = {}) {
  const a = await instance(sharedEnv(databaseUrl, prefix, extra));
  const b = await instance(sharedEnv(databaseUrl, prefix, { ...extra, SIGN_API_TOKENS: a.token }));
  return { a, b: { ...b, token: a.token } };
}

async function verify(server: RunningServer, hash: string) {
  const response = await fetch(`${server.url}/api/verify?hash=${hash}`);
  return {
    status: response.status,
    // biome-ignore lint/suspicious/noExplicitAny: tests read deep into the JSON answer
    body: (await response.json()) as Record<string, any>,
    headers: response.headers,
  };
}

async function allKeys(storage: FileStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of storage.list('')) keys.push(key);
  return keys;
}

describe('two instances on one PostgreSQL and one S3', () => {
  it('a file signed on A verifies on B at once; 30 parallel uploads of one file over both give one record', async () => {
    const databaseUrl = await cluster.createDatabase('one_truth');
    const { a, b } = await pairOf(databaseUrl, 'one-truth');
    const bytes = markdown('signed on A');
    const hash = sha256(bytes);
    // B has answered "unknown" for it before: that answer must not outlive A's write.
    expect((await verify(b, hash)).status).toBe(404);
    const signed = await signOverHttp(a, 'a.md', bytes);
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const onB = await verify(b, hash);
    expect(onB.status).toBe(200);
    expect(onB.body.verified).toBe(true);
    expect(onB.body.event.id).toBe(signed.body.event.id);
    const served = await fetch(`${b.url}/${hash}`);
    expect(served.status).toBe(200);
    expect(sha256(new Uint8Array(await served.arrayBuffer()))).toBe(hash);

    // A third instance that redirects to presigned S3 URLs: 302 after the record check, and the URL serves the bytes.
    const c = await instance(sharedEnv(databaseUrl, 'one-truth', { FILE_REDIRECT: 'presigned' }));
    const redirected = await fetch(`${c.url}/${hash}`, { redirect: 'manual' });
    expect(redirected.status).toBe(302);
    const location = redirected.headers.get('location') ?? '';
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/one-truth/documents/${hash}.md?`)).toBe(true);
    expect(sha256(new Uint8Array(await (await fetch(location)).arrayBuffer()))).toBe(hash);
    expect((await fetch(`${c.url}/${'0'.repeat(64)}`, { redirect: 'manual' })).status).toBe(404);

    const raced = markdown('raced over both');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => signOverHttp(i % 2 === 0 ? a : b, `r${i}.md`, raced)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409).map((answer) => answer.body.error)).toEqual(
      Array(29).fill('ALREADY_SIGNED'),
    );
    const winner = answers.find((answer) => answer.status === 200)?.body;
    for (const server of [a, b]) {
      const checked = await verify(server, sha256(raced));
      expect(checked.body.verified).toBe(true);
      expect(checked.body.event.id).toBe(winner?.event.id);
    }
  });

  it('kill -9 of A during uploads: B goes on, the sweep leaves every record with its file and no file without one, and B delivers what A queued', async () => {
    const relayPort = await freePort();
    const relayUrl = `ws://127.0.0.1:${relayPort}`;
    const databaseUrl = await cluster.createDatabase('killed');
    // The relay is down while A signs: A's events wait in the shared outbox.
    const settings = {
      CLAIM_LEASE_MS: '2000',
      ORPHAN_SWEEP_MS: '1000',
      SIEGEL_RELAYS: relayUrl,
      RELAY_RETRY_MS: '500',
      RELAY_WAIT_MS: '0',
    };
    const { a, b } = await pairOf(databaseUrl, 'killed', settings);
    const relayDownSince = Date.now();
    const queued = await signOverHttp(a, 'queued.md', markdown('queued by A'));
    expect(queued.status).toBe(200);
    expect(queued.body.published_to).toEqual([]);
    // Uploads to A in flight, then A dies.
    let answered = 0;
    const uploads = Array.from({ length: 24 }, (_, i) =>
      signOverHttp(a, `k${i}.md`, markdown(`killed ${i}`)).then(
        (outcome) => {
          answered += 1;
          return outcome;
        },
        () => undefined, // the connection died with A
      ),
    );
    await eventually(() => answered >= 4, 30_000, 5);
    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    const outcomes = await Promise.all(uploads);
    const signedByA = outcomes.filter((outcome) => outcome?.status === 200).length;
    // Some uploads were cut off by the kill (their connections died with A).
    expect(outcomes.filter((outcome) => outcome === undefined).length).toBeGreaterThan(0);
    // B keeps serving: verify, sign.
    expect((await verify(b, sha256(markdown('queued by A')))).body.verified).toBe(true);
    expect((await signOverHttp(b, 'after.md', markdown('after A died'))).status).toBe(200);
    // What A left half-written is gone after B's next sweeps (once A's claims ended).
    const records = await PostgresRecordStore.open(databaseUrl);
    const storage = new S3Storage({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      region: s3.region,
      forcePathStyle: true,
      prefix: 'killed',
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      const consistent = async () => {
        const all = await records.listRecords(undefined, 1000);
        const keys = new Set(await allKeys(storage));
        const recorded = new Set(all.map((record) => record.hash));
        const withoutFile = all.filter((record) => !keys.has(record.fileKey));
        const withoutRecord = [...keys].filter((key) => !recorded.has(/[0-9a-f]{64}/.exec(key)?.[0] ?? ''));
        return { all, withoutFile, withoutRecord, keys };
      };
      // Never a record without its file, at any moment.
      expect((await consistent()).withoutFile).toEqual([]);
      await eventually(async () => (await consistent()).withoutRecord.length === 0, 20_000, 250);
      const state = await consistent();
      expect(state.withoutFile).toEqual([]);
      expect(state.all.length).toBeGreaterThanOrEqual(signedByA + 2);
      expect([...state.keys].every(isStorageKey)).toBe(true);
    } finally {
      await records.close();
    }
    // The relay comes up while A stays down: B's publisher loop delivers A's queued event — at its next try,
    // and not before A's claim on it has ended. The wait after each failed try doubles (RELAY_RETRY_MS), so
    // the next try comes at most as long after the relay is up as the relay was down (on a loaded machine
    // more than a fixed 20 s); and A, killed during a pass, holds the rows that pass claimed for the outbox
    // lease (30 s, PUBLISHING_DEFAULTS.leaseMs; not CLAIM_LEASE_MS, which is the upload's claim on a hash)
    // from its kill: with the relay down 4 s, a wait of down + 20 s ended before A's lease (failed so in 3 of
    // 8 loaded runs, B's log showing the other rows delivered and this one no longer tried).
    const downMs = Date.now() - relayDownSince;
    relays.push(await startRelay({ port: relayPort }));
    const leaseLeftMs = Math.max(0, killedAt + PUBLISHING_DEFAULTS.leaseMs - Date.now());
    await eventually(
      async () => (await queryRelay(relayUrl, { ids: [queued.body.event.id] })).length === 1,
      Math.max(downMs, leaseLeftMs) + 20_000,
      250,
    ).catch((error: unknown) => {
      // B's own account of its relay passes tells a loop that stopped trying from one that tried and failed.
      const relayLines = b
        .output()
        .split('\n')
        .filter((line) => /relay|Relays/i.test(line));
      throw new Error(
        `${String(error)}: A's queued event did not reach the relay (down ${downMs} ms, A's lease left ${leaseLeftMs} ms). B's relay lines:\n${relayLines.slice(-30).join('\n')}`,
      );
    });
    await eventually(
      async () => (await verify(b, sha256(markdown('queued by A')))).body.published_to?.[0] === relayUrl,
      10_000,
      100,
    );
    expect(a.child.exitCode === null && a.child.signalCode === 'SIGKILL').toBe(true);
  });
});

describe('a database that is down', () => {
  it('at start: exit 1 with one line naming host and port', async () => {
    const port = await freePort();
    const url = `postgres://siegel:secret-pw@127.0.0.1:${port}/siegel`;
    const started = startServer({ bunker, env: sharedEnv(url, 'down') });
    const error = await started.then(
      () => new Error('it started'),
      (failure: Error) => failure,
    );
    expect(error.message).toMatch(/server exited with 1 before listening/);
    const lines = error.message
      .split('\n')
      .slice(1)
      .filter((line) => line.trim() !== '');
    expect(lines).toEqual([`Cannot reach PostgreSQL at 127.0.0.1:${port} (connect ECONNREFUSED)`]);
    expect(error.message).not.toContain('secret-pw');
  });

  it('once running: 503 with Retry-After while it is away, never a crash, and back without a restart', async () => {
    const databaseUrl = await cluster.createDatabase('goes_away');
    const server = await instance(sharedEnv(databaseUrl, 'goes-away'));
    const signed = await signOverHttp(server, 'a.md', markdown('before the outage'));
    expect(signed.status).toBe(200);
    const hash = signed.body.hash as string;
    expect((await verify(server, hash)).body.verified).toBe(true);
    await cluster.stop();
    try {
      await eventually(async () => (await verify(server, hash)).status === 503, 10_000, 100);
      const during = await verify(server, hash);
      expect(during.body.error).toBe('STORE_UNAVAILABLE');
      expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);
      const upload = await signOverHttp(server, 'b.md', markdown('during the outage'));
      expect(upload.status).toBe(503);
      expect(upload.body.error).toBe('STORE_UNAVAILABLE');
      expect((await fetch(`${server.url}/${hash}`)).status).toBe(503);
      expect(server.child.exitCode).toBeNull();
    } finally {
      await cluster.start();
    }
    await eventually(async () => (await verify(server, hash)).status === 200, 20_000, 200);
    expect((await verify(server, hash)).body.verified).toBe(true);
    expect((await signOverHttp(server, 'c.md', markdown('after the outage'))).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });
});
