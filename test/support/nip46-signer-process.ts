import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { spawnUntilReady } from './ready-process.ts';

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
  const signer = await spawnUntilReady<{ uri: string; pubkey: string }>(args, READY, 'the NIP-46 signer');
  return {
    ...signer.ready,
    child: signer.child,
    requests: () =>
      [...signer.output().matchAll(REQUEST)].map((match) => JSON.parse(match[1] as string) as Nip46Request),
    output: signer.output,
    stop: signer.stop,
  };
}
