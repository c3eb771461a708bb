import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from './free-port.ts';

const run = promisify(execFile);

/** A private PostgreSQL server for one test file (see {@link startPostgresCluster}). */
export interface PostgresCluster {
  /** `postgres://siegel:…@127.0.0.1:port/siegel`: a password login that owns its database. */
  url: string;
  host: string;
  port: number;
  /** Stop the server (`pg_ctl stop -m fast`: sessions are terminated, as when a database goes away). */
  stop(): Promise<void>;
  /** Start it again, on the same port and data. */
  start(): Promise<void>;
  /**
   * Freeze the server as a hung host would: SIGSTOP to the postmaster (first, so that it forks no more) and
   * to every process it started. Its sockets stay open and the kernel still accepts connections, but nothing
   * answers. Always {@link thaw} it after (in a `finally`): a frozen cluster cannot be stopped.
   */
  freeze(): void;
  /** SIGCONT to the postmaster and every process it started: the server goes on where it stopped. */
  thaw(): void;
  /** Stop it and remove its directory. */
  destroy(): Promise<void>;
  /** A fresh database owned by the same login; resolves with its URL. */
  createDatabase(name: string): Promise<string>;
}

/**
 * `initdb` a cluster in a fresh temporary directory and start it on a free loopback port (its unix socket in
 * that directory; fsync off, it is thrown away). As root, every PostgreSQL program runs as `nobody`, since
 * PostgreSQL refuses to run as root. Needs Debian's `postgresql` (initdb and pg_ctl on PATH or under
 * /usr/lib/postgresql/VERSION/bin). Takes a few seconds: start one per test file and `destroy()` it after.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'siegel-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, Number(idOf('-u')), Number(idOf('-g')));
  const pg = async (program: string, args: string[]) => {
    const command = asRoot ? 'setpriv' : join(bin, program);
    const prefix = asRoot ? ['--reuid=nobody', '--regid=nogroup', '--clear-groups', join(bin, program)] : [];
    try {
      await run(command, [...prefix, ...args], { cwd: dir });
    } catch (error) {
      const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').slice(-2000) : '';
      throw new Error(`${program} failed: ${(error as { stderr?: string }).stderr ?? error}\n${log}`);
    }
  };

  const adminPassword = randomBytes(12).toString('hex');
  const password = randomBytes(12).toString('hex');
  writeFileSync(join(dir, 'pwfile'), `${adminPassword}\n`);
  if (asRoot) chownSync(join(dir, 'pwfile'), Number(idOf('-u')), Number(idOf('-g')));
  await pg('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    `--pwfile=${join(dir, 'pwfile')}`,
    '--auth-host=scram-sha-256',
    '--auth-local=trust',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const host = '127.0.0.1';
  const port = await freePort();
  appendFileSync(
    join(data, 'postgresql.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '${host}'`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      '',
    ].join('\n'),
  );
  const start = () => pg('pg_ctl', ['start', '-D', data, '-l', join(dir, 'log'), '-w', '-t', '30']);
  const stop = () => pg('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '30']);
  const admin = async (work: (sql: postgres.Sql) => Promise<unknown>) => {
    const sql = postgres(`postgres://postgres:${adminPassword}@${host}:${port}/postgres`, {
      onnotice: () => {},
    });
    try {
      await work(sql);
    } finally {
      await sql.end();
    }
  };
  const urlOf = (database: string) => `postgres://siegel:${password}@${host}:${port}/${database}`;
  const createDatabase = async (name: string) => {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`Database name \`${name}\`: use [a-z0-9_]`);
    await admin((sql) => sql.unsafe(`CREATE DATABASE ${name} OWNER siegel`));
    return urlOf(name);
  };

  /** The postmaster's process id, from its pid file. */
  const postmaster = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  /** The processes `parent` started, by their parent in /proc. */
  const childrenOf = (parent: number) =>
    readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          // `pid (comm) state ppid …`: the command name may hold spaces and parentheses.
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
        } catch {
          return false; // ended meanwhile
        }
      })
      .map(Number);
  const send = (pids: number[], signal: 'SIGSTOP' | 'SIGCONT') => {
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
      } catch {} // ended meanwhile
    }
  };

  await start();
  await admin((sql) => sql.unsafe(`CREATE ROLE siegel LOGIN PASSWORD '${password}'`));
  await createDatabase('siegel');
  return {
    url: urlOf('siegel'),
    host,
    port,
    start,
    stop,
    freeze() {
      const pid = postmaster();
      send([pid], 'SIGSTOP'); // first: a stopped postmaster starts no more children
      send(childrenOf(pid), 'SIGSTOP');
    },
    thaw() {
      const pid = postmaster();
      send([...childrenOf(pid), pid], 'SIGCONT');
    },
    async destroy() {
      await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
    createDatabase,
  };
}

/** The directory of initdb and pg_ctl: the one of `initdb` on PATH, else the newest /usr/lib/postgresql/N/bin. */
function findPostgresBin(): string {
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    if (initdb) return dirname(realpathSync(initdb));
  } catch {}
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined) {
    throw new Error(
      'PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql): apt-get install postgresql',
    );
  }
  return join(root, versions[0], 'bin');
}

function idOf(flag: '-u' | '-g'): string {
  return execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim();
}
