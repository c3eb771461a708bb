import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RELAY_LIMITS } from '@siegel/core/relay';
import { spawnUntilReady } from './ready-process.ts';

const RELAY_SERVER = fileURLToPath(new URL('./relay/relay-server.mjs', import.meta.url));
const READY = /^SIEGEL_RELAY_READY (\{.*\})$/m;

/** A relay process started by {@link startRelay}. */
export interface RunningRelay {
  /** `ws://127.0.0.1:PORT` */
  url: string;
  child: ChildProcess;
  /** Everything it wrote so far. */
  output(): string;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>;
  /** A `silent` relay starts answering (SIGUSR1); resolves once it says so. */
  answer(): Promise<void>;
}

/**
 * Start test/support/relay/relay-server.mjs (a NIP-01 relay on @nostr-relay/core + ws, its own process) on
 * a free loopback port (or `port`). `refuse`: answer every EVENT with `OK false` and `blocked: {refuse}`.
 * `silent`: accept connections and read every message, answer nothing until {@link RunningRelay.answer}.
 * `limits` (default core's RELAY_LIMITS, strfry's defaults, as public relays run it): an event over them
 * gets `OK false` and `invalid: …` as from strfry.
 */
export async function startRelay(
  options: {
    port?: number;
    refuse?: string;
    silent?: boolean;
    limits?: { maxEventBytes: number; maxTags: number; maxTagValueBytes: number };
  } = {},
): Promise<RunningRelay> {
  const limits = options.limits ?? RELAY_LIMITS;
  const args = [RELAY_SERVER, '--port', String(options.port ?? 0), '--limits', JSON.stringify(limits)];
  if (options.refuse !== undefined) args.push('--refuse', options.refuse);
  if (options.silent) args.push('--silent');
  const relay = await spawnUntilReady<{ url: string }>(args, READY, 'the relay');
  return {
    url: relay.ready.url,
    child: relay.child,
    output: relay.output,
    stop: relay.stop,
    async answer() {
      relay.child.kill('SIGUSR1');
      const deadline = Date.now() + 10_000;
      while (!relay.output().includes('SIEGEL_RELAY_ANSWERING')) {
        if (Date.now() > deadline) throw new Error(`the relay did not start answering:\n${relay.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/**
 * Ask the relay at `url` for `filter` (one REQ, until EOSE) over a plain WebSocket, the way any client
 * does; resolves with the events it sent. Fails after `timeoutMs` without EOSE.
 */
export function queryRelay(
  url: string,
  filter: Record<string, unknown>,
  timeoutMs = 10_000,
): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const events: unknown[] = [];
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no EOSE from ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.onopen = () => socket.send(JSON.stringify(['REQ', 'q', filter]));
    socket.onerror = () => {
      clearTimeout(timer);
      reject(new Error(`cannot reach ${url}`));
    };
    socket.onmessage = (message) => {
      const data = JSON.parse(String(message.data)) as unknown[];
      if (data[0] === 'EVENT' && data[1] === 'q') events.push(data[2]);
      if (data[0] === 'EOSE' && data[1] === 'q') {
        clearTimeout(timer);
        socket.close();
        resolve(events);
      }
    };
  });
}

/**
 * Send `event` to the relay at `url` (one `EVENT` on a plain WebSocket) and resolve once it answers `OK`;
 * rejects when the relay refuses it or does not answer within `timeoutMs`.
 */
export function sendEvent(url: string, event: unknown, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no OK from ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.onopen = () => socket.send(JSON.stringify(['EVENT', event]));
    socket.onerror = () => {
      clearTimeout(timer);
      reject(new Error(`cannot reach ${url}`));
    };
    socket.onmessage = (message) => {
      const data = JSON.parse(String(message.data)) as unknown[];
      if (data[0] !== 'OK') return;
      clearTimeout(timer);
      socket.close();
      if (data[2] === true) resolve();
      else reject(new Error(`${url} refused the event: ${String(data[3])}`));
    };
  });
}
