// The NIP-46 worker thread: relay link, signature checks, ECDH, decryption and replies, off the HTTP
// thread. Started by `Nip46Service`; it never holds a signing key (it asks the HTTP thread to sign).
import { parentPort, workerData } from 'node:worker_threads';
import { loadSigningEngine } from '@siegel/core/crypto';
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { BunkerError } from '../errors.js';
import type { KeyCipherMethod } from '../key-store.js';
import type { Logger } from '../logger.js';
import { ConnectionStore } from './connection-store.js';
import { DropLog } from './drop-log.js';
import { RelayPool } from './relay-pool.js';
import { NIP46_KIND, RemoteSigner } from './remote-signer.js';
import { ReplayGuard } from './replay-guard.js';
import { StrangerBudget } from './stranger-budget.js';
import {
  type FromWorker,
  type KeyCalls,
  type ToWorker,
  toWire,
  type WorkerCalls,
  type WorkerInit,
} from './worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('nip46/worker.js runs as a worker thread');
const init = workerData as WorkerInit;
const send = (message: FromWorker) => port.postMessage(message);
const logger: Logger = {
  info: (message) => send({ type: 'log', level: 'info', message }),
  warn: (message) => send({ type: 'log', level: 'warn', message }),
  error: (message) => send({ type: 'log', level: 'error', message }),
};
const drops = new DropLog(logger);
// nostr-tools reports a relay message it cannot process with console.warn, one line each: counted instead.
console.warn = () => drops.count('malformed');
console.debug = () => {};

let nextKeyCall = 0;
const keyCalls = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();

function callKeys<M extends keyof KeyCalls>(method: M, ...args: KeyCalls[M]): Promise<unknown> {
  const id = nextKeyCall++;
  return new Promise((resolve, reject) => {
    keyCalls.set(id, { resolve, reject });
    send({ type: 'key', id, method, args });
  });
}

const engine = await loadSigningEngine({
  onFallback: (reason) =>
    logger.warn(`NIP-46 worker: WebAssembly unavailable (${String(reason)}); pure JavaScript`),
});
const connections = await ConnectionStore.open({
  dataDir: init.dataDir,
  engine,
  logger,
  uriTtlMs: init.uriTtlMs,
});
const replays = await ReplayGuard.open(init.dataDir);
let pool: RelayPool | undefined;
const signer = new RemoteSigner({
  keys: {
    pubkey: (key) => callKeys('pubkey', key) as Promise<string>,
    sign: (key, template: EventTemplate, client) =>
      callKeys('sign', key, template, client) as Promise<NostrEvent>,
    cipher: (key, method: KeyCipherMethod, peer, text) =>
      callKeys('cipher', key, method, peer, text) as Promise<string>,
  },
  connections,
  engine,
  budget: new StrangerBudget(init.budget),
  replays,
  drops,
  publish: (event) => pool?.publish(event) ?? Promise.resolve(0),
  logger,
});
pool = new RelayPool({
  relays: init.relays,
  filter: () => ({ kinds: [NIP46_KIND], '#p': connections.signerPubkeys() }),
  onEvent: (event) => {
    signer.handle(event).catch((error: unknown) => logger.error(`NIP-46: ${String(error)}`));
  },
  logger,
  ...(init.maxPayload !== undefined && { maxPayload: init.maxPayload }),
});

const calls: { [M in keyof WorkerCalls]: (...args: WorkerCalls[M]) => unknown } = {
  async offer(key, permissions) {
    const offer = connections.offer(key, permissions);
    await pool?.resubscribe();
    return offer;
  },
  connections: () => connections.list(),
  pending: () => connections.pending(),
  async revoke(key, pubkey) {
    await connections.revoke(key, pubkey);
    await pool?.resubscribe();
  },
  stats: () => signer.stats(),
  async close() {
    pool?.close();
    drops.flush();
    await connections.close();
    await replays.close();
  },
};

port.on('message', (message: ToWorker) => {
  if (message.type === 'key-reply') {
    const call = keyCalls.get(message.id);
    keyCalls.delete(message.id);
    if (message.error) call?.reject(new BunkerError(message.error.code, message.error.message));
    else call?.resolve(message.result);
    return;
  }
  const method = calls[message.method] as (...args: unknown[]) => unknown;
  Promise.resolve()
    .then(() => method(...message.args))
    .then(
      (result) => send({ type: 'reply', id: message.id, result }),
      (error: unknown) => send({ type: 'reply', id: message.id, error: toWire(error) }),
    );
});

pool.start();
send({ type: 'ready' });
