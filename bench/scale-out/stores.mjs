// The PostgreSQL database and S3 bucket the scale-out bench runs its servers on: the ones named by the
// environment (DATABASE_URL and S3_BUCKET with the other S3_* and AWS_* settings, as the server reads them),
// else a private PostgreSQL cluster and an s3rver process started for the run by the tests' own helpers
// (test/support/postgres-cluster.ts and s3-server.ts: Node 24 runs TypeScript files by stripping their
// types, so the bench imports them as they are: one home for how both are started). Also: the processor
// time of a process, and how to find the PostgreSQL server and the s3rver process to measure them.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Processor ticks per second in /proc/PID/stat (USER_HZ: 100 on every Linux the bench runs on). */
const TICKS_PER_SECOND = 100;

/**
 * The stores for the PostgreSQL + S3 servers; `env` is what each such server gets on top of its own
 * settings. Every run writes under a fresh S3_PREFIX (inside the given one, if any) and signs files no other
 * run signs, so runs against the same database and bucket do not meet.
 */
export async function openSharedStores() {
  const runPrefix = `scale-out-bench-${randomBytes(4).toString('hex')}`;
  const given = process.env.DATABASE_URL?.trim() && process.env.S3_BUCKET?.trim();
  if (given) {
    const outer = process.env.S3_PREFIX?.trim().replace(/\/+$/, '');
    return {
      started: false,
      env: {
        DATABASE_URL: process.env.DATABASE_URL,
        S3_BUCKET: process.env.S3_BUCKET,
        S3_ENDPOINT: process.env.S3_ENDPOINT ?? '',
        S3_REGION: process.env.S3_REGION ?? '',
        S3_FORCE_PATH_STYLE: process.env.S3_FORCE_PATH_STYLE ?? '',
        S3_PREFIX: outer ? `${outer}/${runPrefix}` : runPrefix,
      },
      /** Another database is not ours to create: the breakdown that needs one is left out. */
      createDatabase: async () => undefined,
      close: async () => {},
    };
  }
  const [{ startPostgresCluster }, { startS3Server }] = await Promise.all([
    import('../../test/support/postgres-cluster.ts'),
    import('../../test/support/s3-server.ts'),
  ]);
  const [cluster, s3] = await Promise.all([startPostgresCluster(), startS3Server()]);
  return {
    started: true,
    env: {
      DATABASE_URL: cluster.url,
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: runPrefix,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    },
    /** A fresh database on the same cluster; resolves with its URL. */
    createDatabase: (name) => cluster.createDatabase(name),
    close: () => Promise.all([cluster.destroy(), s3.destroy()]),
  };
}

/** The settings that keep a server on SQLite and the data directory even when the bench's environment names PostgreSQL and S3. */
export const LOCAL_STORES_ENV = {
  DATABASE_URL: '',
  S3_BUCKET: '',
  S3_ENDPOINT: '',
  S3_REGION: '',
  S3_FORCE_PATH_STYLE: '',
  S3_PREFIX: '',
};

/** Fields of /proc/PID/stat after the command name: [ppid, utime, stime, cutime, cstime] (ticks). */
async function statOf(pid) {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is the state (field 3): ppid is field 4, utime..cstime fields 14..17.
  return {
    ppid: Number(fields[1]),
    own: Number(fields[11]) + Number(fields[12]),
    reaped: Number(fields[13]) + Number(fields[14]),
  };
}

async function allPids() {
  return (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
}

async function cmdlineOf(pid) {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
}

/**
 * Processor seconds used so far by `pid` and, with `children`, by its live children and the children it
 * has reaped (PostgreSQL: the postmaster and its backends). 0 for a process that is gone.
 */
export async function cpuSeconds(pid, { children = false } = {}) {
  try {
    const own = await statOf(pid);
    let ticks = own.own + (children ? own.reaped : 0);
    if (children) {
      for (const other of await allPids()) {
        const stat = await statOf(other).catch(() => undefined);
        if (stat?.ppid === pid) ticks += stat.own;
      }
    }
    return ticks / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The pid of the PostgreSQL server on this machine listening on `port` (from its postmaster.pid), if any. */
export async function findPostmaster(port) {
  for (const pid of await allPids()) {
    const args = await cmdlineOf(pid);
    const dataDir = args[args.indexOf('-D') + 1];
    if (!args[0]?.endsWith('/postgres') || !args.includes('-D') || dataDir === undefined) continue;
    const lines = (await readFile(join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
    if (Number(lines[0]) === pid && Number(lines[3]) === port) return pid;
  }
  return undefined;
}

/** The pid of the s3rver process this bench started (test/support/s3-server-process.mjs), if any. */
export async function findS3Server() {
  for (const pid of await allPids()) {
    const stat = await statOf(pid).catch(() => undefined);
    if (stat?.ppid !== process.pid) continue;
    if ((await cmdlineOf(pid)).some((arg) => arg.endsWith('s3-server-process.mjs'))) return pid;
  }
  return undefined;
}
