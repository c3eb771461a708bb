import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.ts';
import { type ReadyProcess, spawnUntilReady } from './ready-process.ts';

const S3_SERVER = fileURLToPath(new URL('./s3-server-process.mjs', import.meta.url));
const READY = /^SIEGEL_S3_READY (\{.*\})$/m;

/** An S3-compatible server started by {@link startS3Server}. */
export interface RunningS3Server {
  /** `http://127.0.0.1:PORT` (path-style requests). */
  endpoint: string;
  bucket: string;
  /** Any region: s3rver signs with whatever region the request names. */
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Everything the current process wrote so far. */
  output(): string;
  /** Stop the server process (SIGTERM, then wait for the exit); its objects stay in the directory. */
  stop(): Promise<void>;
  /** Start it again on the same port and directory (after {@link stop}). */
  start(): Promise<void>;
  /** Stop it and delete its directory. */
  destroy(): Promise<void>;
}

/**
 * Start test/support/s3-server-process.mjs (@20minutes/s3rver, its own process) on a free loopback port,
 * with a fresh temp directory, one bucket, and a random key pair whose signatures it checks.
 *
 * @example
 * ```ts
 * const s3 = await startS3Server();
 * const storage = new S3Storage({ ...s3, forcePathStyle: true, credentials: s3 });
 * await s3.destroy();
 * ```
 */
export async function startS3Server(options: { bucket?: string } = {}): Promise<RunningS3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'siegel-s3-'));
  const port = await freePort();
  const bucket = options.bucket ?? 'siegel-test';
  const accessKeyId = `TEST${randomBytes(8).toString('hex').toUpperCase()}`;
  const secretAccessKey = randomBytes(24).toString('base64url');
  const args = [
    // s3rver's ListObjectsV2 continuation tokens are DES-encrypted, a cipher OpenSSL 3 keeps in its legacy
    // provider: without it every second page is a 500 InternalError.
    '--openssl-legacy-provider',
    S3_SERVER,
    ...['--port', String(port), '--directory', directory, '--bucket', bucket],
    // `--name=value`: a base64url secret may start with `-`, which parseArgs reads as an option otherwise
    // ("argument is ambiguous": one start in 64 failed).
    `--access-key-id=${accessKeyId}`,
    `--secret-access-key=${secretAccessKey}`,
  ];
  const spawn = () => spawnUntilReady<{ endpoint: string }>(args, READY, 's3rver');
  let running: ReadyProcess<{ endpoint: string }> | undefined = await spawn();
  const endpoint = running.ready.endpoint;
  const stop = async () => {
    await running?.stop();
    running = undefined;
  };
  return {
    endpoint,
    bucket,
    region: 'us-east-1',
    accessKeyId,
    secretAccessKey,
    output: () => running?.output() ?? '',
    stop,
    async start() {
      if (running !== undefined) throw new Error('s3rver is already running');
      running = await spawn();
    },
    async destroy() {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
