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
  const relay = await listen((socket, request, send) => {
    paths.push(request.url);
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message[0] !== 'REQ') return;
      const [, subscription, filter] = message;
      requests.push(filter);
      for (const event of answer(filter)) send(JSON.stringify(['EVENT', subscription, event]));
      send(JSON.stringify(['EOSE', subscription]));
    });
  });
  return { ...relay, requests, paths };
}

/**
 * Size of the fragments a message larger than this goes out in (see {@link listen}'s `send`). A client
 * that caps messages at `cap` bytes (a multiple of it) refuses one after exactly `cap + FRAGMENT_BYTES`
 * bytes of it were sent: the fragment that crosses its cap.
 */
export const FRAGMENT_BYTES = 32 * 1024;

/**
 * The WebSocket server of each hostile relay here. It records, for every connection it saw end, the close
 * code (`closeCodes`) and how many bytes of messages over {@link FRAGMENT_BYTES} it had sent on it
 * (`largeBytesSent`, same order). `onConnection(socket, request, send)` answers through `send(data)`, which
 * sends one message after those queued before it on that socket.
 *
 * A large message goes out in fragments (one message to the client: `ws`, undici and browsers add the
 * fragments up against the same cap), each followed by a ping; the next fragment goes only once the ping's
 * pong came back, that is once the client has read everything sent so far. A client that refuses the
 * message therefore refuses it at the fragment that crosses its cap, and its close frame (1009) reaches a
 * relay that is writing nothing: the relay reads it and records 1009. (Sending the whole message at once
 * raced the client's close: the client resets a connection that still has unread bytes, and a relay in the
 * middle of its send could fail that send and drop the socket before it read the close frame — 1006.) A
 * client that takes the whole message answers every ping: the relay sends all of it, and says so.
 */
async function listen(onConnection) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  const closeCodes = [];
  const largeBytesSent = [];
  let connections = 0;
  server.on('connection', (socket, request) => {
    connections++;
    const state = { largeSent: 0, queue: Promise.resolve() };
    socket.on('close', (code) => {
      closeCodes.push(code);
      largeBytesSent.push(state.largeSent);
    });
    socket.on('error', () => {});
    const send = (data) => {
      state.queue = state.queue.then(() => sendMessage(socket, data, state)).catch(() => {});
      return state.queue;
    };
    onConnection(socket, request, send);
  });
  return {
    url: `ws://127.0.0.1:${server.address().port}`,
    closeCodes,
    largeBytesSent,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

/** One text message on `socket`: at once, or (over {@link FRAGMENT_BYTES}) paced by pings (see {@link listen}). */
async function sendMessage(socket, data, state) {
  if (socket.readyState !== socket.OPEN) return;
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  if (bytes.length <= FRAGMENT_BYTES) {
    socket.send(bytes, { binary: false });
    return;
  }
  for (let offset = 0; offset < bytes.length; offset += FRAGMENT_BYTES) {
    if (socket.readyState !== socket.OPEN) return;
    const fragment = bytes.subarray(offset, offset + FRAGMENT_BYTES);
    const answered = new Promise((resolve) => {
      const done = () => {
        socket.off('pong', done);
        socket.off('close', done);
        resolve();
      };
      socket.on('pong', done);
      socket.on('close', done);
    });
    socket.send(fragment, { binary: false, fin: offset + fragment.length === bytes.length });
    state.largeSent += fragment.length;
    socket.ping();
    await answered;
  }
}

/**
 * A relay that answers a client's first message (`REQ` or `EVENT`) with one `NOTICE` of `bytes` bytes (default
 * 64 MiB), as a hostile relay can: a client without a message cap takes it all into memory. Its
 * `largeBytesSent` says how much of it a client took before closing: all of it, for a client that buffers
 * the message. With `flood` set to false it behaves (`OK` true to every `EVENT`, `EOSE` to every `REQ`)
 * until it is set again.
 */
export async function startOversizedRelay(bytes = 64 * 1024 * 1024) {
  let notice;
  const relay = Object.assign(
    await listen((socket, _request, send) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        if (relay.flood) {
          // Built once, on first use: one buffer serves every connection.
          notice ??= Buffer.concat([
            Buffer.from('["NOTICE","'),
            Buffer.alloc(bytes - 13, 'x'),
            Buffer.from('"]'),
          ]);
          send(notice);
        } else if (message[0] === 'EVENT') send(JSON.stringify(['OK', message[1].id, true, '']));
        else if (message[0] === 'REQ') send(JSON.stringify(['EOSE', message[1]]));
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
 * `delayMs`: how long the relay holds back each `OK` and each reply (a slow relay, or a signer waiting for a
 * person to approve).
 */
export async function startHostileSigner(reply, { delayMs = 0 } = {}) {
  const secretKey = generateSecretKey();
  const pubkey = getPublicKey(secretKey);
  const requests = [];
  const answers = [];
  /** The subscription of each connection that sent a `REQ`, and its `send`. */
  const subscriptions = new Map();
  const relay = await listen((socket, _request, send) => {
    socket.on('close', () => subscriptions.delete(socket));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message[0] === 'REQ') {
        subscriptions.set(socket, { subscription: message[1], send });
        // A reply made before the client subscribed (its REQ and EVENT race) still reaches it.
        for (const answer of answers) send(JSON.stringify(['EVENT', message[1], answer]));
        send(JSON.stringify(['EOSE', message[1]]));
        return;
      }
      if (message[0] !== 'EVENT') return;
      const event = message[1];
      const later = (action) => (delayMs > 0 ? setTimeout(action, delayMs) : action());
      later(() => send(JSON.stringify(['OK', event.id, true, ''])));
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
      later(() => {
        answers.push(answer);
        for (const { subscription, send: sendTo } of subscriptions.values())
          sendTo(JSON.stringify(['EVENT', subscription, answer]));
      });
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
