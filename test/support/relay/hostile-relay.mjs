// Hostile relays for the tests, in the test's process. `startHostileRelay` speaks NIP-01 framing (`REQ` →
// `EVENT`s, `EOSE`) but answers every `REQ` with whatever `answer(filter)` returns — forged events, events
// with other ids — the way a malicious or broken relay can; `startOversizedRelay` answers with one huge
// message; `startHostileSigner` is a relay and a NIP-46 signer whose replies no client can read. They stand
// for the adversary, never for a relay Siegel relies on (that is relay-server.mjs, a real one).
import * as nip44 from 'nostr-tools/nip44';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { WebSocketServer } from 'ws';

/**
 * @param {(filter: Record<string, unknown>) => unknown[]} answer
 * @returns {Promise<{ url: string, requests: unknown[], paths: string[], closeCodes: number[], connections(): number, close(): Promise<void> }>}
 */
export async function startHostileRelay(answer) {
  const requests = [];
  const paths = [];
  const relay = await listen((socket, request) => {
    paths.push(request.url);
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message[0] !== 'REQ') return;
      const [, subscription, filter] = message;
      requests.push(filter);
      for (const event of answer(filter)) socket.send(JSON.stringify(['EVENT', subscription, event]));
      socket.send(JSON.stringify(['EOSE', subscription]));
    });
  });
  return { ...relay, requests, paths };
}

/** The WebSocket server of each hostile relay here, with the close code of every connection it saw end. */
async function listen(onConnection) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  const closeCodes = [];
  let connections = 0;
  server.on('connection', (socket, request) => {
    connections++;
    socket.on('close', (code) => closeCodes.push(code));
    socket.on('error', () => {});
    onConnection(socket, request);
  });
  return {
    url: `ws://127.0.0.1:${server.address().port}`,
    closeCodes,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

/**
 * A relay that answers a client's first message (`REQ` or `EVENT`) with one `NOTICE` of `bytes` bytes (default
 * 64 MiB), as a hostile relay can: a client without a message cap takes it all into memory. With `flood`
 * set to false it behaves (`OK` true to every `EVENT`, `EOSE` to every `REQ`) until it is set again.
 */
export async function startOversizedRelay(bytes = 64 * 1024 * 1024) {
  let notice;
  const relay = Object.assign(
    await listen((socket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        if (relay.flood) {
          // Built once, on first use: one buffer serves every connection.
          notice ??= Buffer.concat([
            Buffer.from('["NOTICE","'),
            Buffer.alloc(bytes - 13, 'x'),
            Buffer.from('"]'),
          ]);
          socket.send(notice, { binary: false });
        } else if (message[0] === 'EVENT') socket.send(JSON.stringify(['OK', message[1].id, true, '']));
        else if (message[0] === 'REQ') socket.send(JSON.stringify(['EOSE', message[1]]));
      });
    }),
    { flood: true },
  );
  return relay;
}

/**
 * A relay that is also a hostile NIP-46 signer (kind 24133): it takes every request to its key (`OK` true),
 * reads it (NIP-44), and replies to the subscriptions of its connections with `reply(request, client)`'s
 * content, signed by its key — a NIP-04 ciphertext, or a 30 MB string, as a broken or hostile signer can.
 */
export async function startHostileSigner(reply) {
  const secretKey = generateSecretKey();
  const pubkey = getPublicKey(secretKey);
  const requests = [];
  const answers = [];
  const subscriptions = new Map();
  const relay = await listen((socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message[0] === 'REQ') {
        subscriptions.set(socket, message[1]);
        // A reply made before the client subscribed (its REQ and EVENT race) still reaches it.
        for (const answer of answers) socket.send(JSON.stringify(['EVENT', message[1], answer]));
        socket.send(JSON.stringify(['EOSE', message[1]]));
        return;
      }
      if (message[0] !== 'EVENT') return;
      const event = message[1];
      socket.send(JSON.stringify(['OK', event.id, true, '']));
      if (event.kind !== 24133) return;
      const request = JSON.parse(
        nip44.decrypt(event.content, nip44.getConversationKey(secretKey, event.pubkey)),
      );
      requests.push(request);
      const answer = finalizeEvent(
        {
          kind: 24133,
          created_at: Math.floor(Date.now() / 1000),
          tags: [['p', event.pubkey]],
          content: reply(request, { secretKey, client: event.pubkey }),
        },
        secretKey,
      );
      answers.push(answer);
      for (const [client, subscription] of subscriptions)
        client.send(JSON.stringify(['EVENT', subscription, answer]));
    });
  });
  return {
    ...relay,
    pubkey,
    secretKey,
    requests,
    uri: `bunker://${pubkey}?relay=${relay.url}&secret=s3cret`,
  };
}
