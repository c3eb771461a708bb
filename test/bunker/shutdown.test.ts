// Found while testing issue 10: a connection that never sends a request (a browser's preconnected socket,
// or anyone's idle `nc`) held a stopping bunker open for good — Node counts it as busy, and no longer runs
// its headers timeout once the server is closing — so SIGTERM (or Ctrl-C with the dashboard open in a
// browser) did not end the process. Requests in flight still get a grace period to finish.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BUNKER_CLI, spawnBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';

// Timeouts (docs/testing.md): bunker shutdown with open sockets: 23 s among parallel files
vi.setConfig({ testTimeout: 60_000 });

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('shutdown', () => {
  it('exits 0 within seconds of SIGTERM although idle and half-sent connections are open', async () => {
    const bunker = await spawnBunker({ args: ['--dev', '--port', '0'] });
    const idle = await open(bunker.url);
    const halfSent = await open(bunker.url);
    halfSent.write('POST /api/keys/default/sign HTTP/1.1\r\nHost: x\r\n'); // headers never finished
    const sockets = [idle, halfSent];
    for (const socket of sockets) socket.on('error', () => {});
    let closed = 0;
    for (const socket of sockets) socket.once('close', () => closed++);
    // Both connections are open and the bunker still answers.
    expect((await fetch(`${bunker.url}/api/status`)).status).toBe(401);
    expect(sockets.map((socket) => socket.readyState)).toEqual(['open', 'open']);
    // A ceiling against the hang this was (the process never ended), five times the 3 s grace the bunker
    // gives requests in flight before it closes every connection.
    const code = await Promise.race([
      bunker.stop(),
      new Promise<string>((resolve) => setTimeout(() => resolve('still running after 15 s'), 15_000)),
    ]);
    try {
      expect(code).toBe(0);
      // Its end closed both connections: neither outlived it.
      await eventually(() => closed === 2, 5_000, 20);
    } finally {
      for (const socket of sockets) socket.destroy();
      if (code === 'still running after 15 s') bunker.child.kill('SIGKILL');
    }
  });

  // Found in a full `npm test` run: the SIGTERM handler was installed only after the ready line was
  // printed, so a supervisor stopping the bunker the moment it read that line killed it outright (exit by
  // signal, no graceful shutdown) — 8 times in 20 on this machine.
  it('shuts down gracefully when SIGTERM comes the moment the ready line is read', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'siegel-e2e-shutdown-'));
    try {
      const results: Array<number | string | null> = [];
      for (let i = 0; i < 10; i++) {
        const child = spawn(process.execPath, [BUNKER_CLI, 'start', '--port', '0', '--data-dir', dataDir], {
          env: {
            PATH: process.env.PATH ?? '',
            BUNKER_API_TOKEN: 'shutdown-api-token-0123456789',
            BUNKER_ADMIN_TOKEN: 'shutdown-admin-token-0123456789',
          },
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('SIEGEL_BUNKER_READY')) child.kill('SIGTERM');
        });
        results.push(
          await new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal))),
        );
      }
      expect(results).toEqual(Array(10).fill(0));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
