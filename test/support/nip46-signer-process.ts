import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const NDK_SIGNER = fileURLToPath(new URL('./nip46-signer/ndk-signer.mjs', import.meta.url));
const READY = /^SIEGEL_NIP46_READY (\{.*\})$/m;
const REQUEST = /^SIEGEL_NIP46_REQUEST (\{.*\})$/gm;

/** One request the signer handled: its method, the client's pubkey, and whether it was allowed. */
export interface Nip46Request {
  method: string;
  client: string;
  allowed: boolean;
}

/** A NIP-46 signer process started by {@link startNip46Signer}. */
export interface RunningNip46Signer {
  /** `bunker://<pubkey>?relay=…&secret=…` */
  uri: string;
  /** Hex pubkey it signs as (and is addressed by). */
  pubkey: string;
  child: ChildProcess;
  /** Every request it handled so far, in order. */
  requests(): Nip46Request[];
  output(): string;
  stop(): Promise<void>;
}

/**
 * Start test/support/nip46-signer/ndk-signer.mjs — NDK's `NDKNip46Backend`, an independent NIP-46 signer —
 * on the relay at `relay`, with a fresh key and a fresh one-time secret. `refuse`: every `sign_event` is
 * denied; `denyConnect`: every `connect` is.
 */
export async function startNip46Signer(options: {
  relay: string;
  refuse?: boolean;
  denyConnect?: boolean;
}): Promise<RunningNip46Signer> {
  const args = [
    NDK_SIGNER,
    '--relay',
    options.relay,
    '--key',
    randomBytes(32).toString('hex'),
    '--secret',
    randomBytes(12).toString('hex'),
  ];
  if (options.refuse) args.push('--refuse');
  if (options.denyConnect) args.push('--deny-connect');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ uri: string; pubkey: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the NIP-46 signer did not start within 20 s:\n${out}`));
    }, 20_000);
    const check = () => {
      const match = READY.exec(out);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      resolve(JSON.parse(match[1]) as { uri: string; pubkey: string });
    };
    child.stdout.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the NIP-46 signer exited before it was ready:\n${out}`));
    });
  });
  return {
    ...ready,
    child,
    requests: () => [...out.matchAll(REQUEST)].map((match) => JSON.parse(match[1] as string) as Nip46Request),
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
