// The `unit` project's promise: pure code, no process, no socket. This setup file makes every way a test
// could break that promise throw at the call, naming what was called and where the test belongs instead.
// Worker threads stay allowed (they are code in this process). Node's ESM named exports of built-ins
// (`import { spawn } from 'node:child_process'`) are copies of the CommonJS exports taken at load:
// `syncBuiltinESMExports` updates them after the replacement below.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, vi } from 'vitest';

/** The error every guarded call throws. */
export class UnitGuardError extends Error {
  override name = 'UnitGuardError';
}

function refuse(what: string): never {
  throw new UnitGuardError(
    `${what} in the \`unit\` project: unit tests start no process and open no socket. ` +
      'Move this test file into the `real` project (vitest.config.ts) if it needs one.',
  );
}

const guarded = {
  child_process: ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'],
  net: ['connect', 'createConnection'],
  tls: ['connect'],
} as const;

for (const name of guarded.child_process)
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`child_process.${name}()`);
for (const name of guarded.net)
  (net as unknown as Record<string, unknown>)[name] = () => refuse(`net.${name}()`);
for (const name of guarded.tls)
  (tls as unknown as Record<string, unknown>)[name] = () => refuse(`tls.${name}()`);
// Every server (http, https, net, a WebSocket server on a port) listens through net.Server.
net.Server.prototype.listen = () => refuse('net.Server#listen()');
// fetch (undici) and every client socket end in net.Socket#connect, whatever module asked for it.
net.Socket.prototype.connect = () => refuse('net.Socket#connect()');
syncBuiltinESMExports();

// The project runs its files one after another in each worker without fresh modules (`isolate: false`,
// vitest.config.ts): what a file left switched on — fake timers, spies, stubbed globals or environment —
// is switched off before the next file runs.
afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
