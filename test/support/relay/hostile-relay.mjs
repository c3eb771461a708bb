// A hostile relay for the tests, in the test's process: it speaks NIP-01 framing (`REQ` → `EVENT`s, `EOSE`)
// but answers every `REQ` with whatever `answer(filter)` returns — forged events, events with other ids —
// the way a malicious or broken relay can. It stands for the adversary, never for a relay Siegel relies on
// (that is relay-server.mjs, a real one).
import { WebSocketServer } from 'ws';

/**
 * @param {(filter: Record<string, unknown>) => unknown[]} answer
 * @returns {Promise<{ url: string, requests: unknown[], close(): Promise<void> }>}
 */
export async function startHostileRelay(answer) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  const requests = [];
  server.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message[0] !== 'REQ') return;
      const [, subscription, filter] = message;
      requests.push(filter);
      for (const event of answer(filter)) socket.send(JSON.stringify(['EVENT', subscription, event]));
      socket.send(JSON.stringify(['EOSE', subscription]));
    });
  });
  const { port } = server.address();
  return {
    url: `ws://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
