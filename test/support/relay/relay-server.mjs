// A real Nostr relay for the tests, run as its own process: NIP-01 over WebSocket by @nostr-relay/core (the
// relay library: message handling, subscriptions, signature checks, OK/EOSE/CLOSED), served by `ws`, with a
// small in-memory event store of ours. Not a fake: it answers what the protocol says, never what a test
// expects.
//
//   node relay-server.mjs [--port 0] [--refuse REASON] [--silent] [--limits JSON]
//
// Prints `SIEGEL_RELAY_READY {"url":"ws://127.0.0.1:PORT"}` once listening. `--refuse` makes it answer every
// EVENT with `OK false` and `blocked: REASON` (a relay that refuses, as a paid or allow-listed one does).
// `--silent` makes it a relay that accepts connections and reads every message but never answers (a
// stalled relay, as the issue-22 audit had among healthy ones) until it gets SIGUSR1: from then on it is a
// working relay (what it swallowed before stays swallowed, as with a relay that dropped it).
// Ephemeral events (kinds 20000–29999, e.g. NIP-46's 24133) are passed on to subscribers, never stored.
// `--limits {"maxEventBytes":…,"maxTags":…,"maxTagValueBytes":…}` (relay-process.ts passes core's
// RELAY_LIMITS, strfry's defaults, unless told otherwise) refuses an event over them as strfry does:
// `["OK", id, false, "invalid: …"]`.
import { parseArgs } from 'node:util';
import { EventRepository, EventUtils } from '@nostr-relay/common';
import { NostrRelay } from '@nostr-relay/core';
import { WebSocketServer } from 'ws';

/** Replaceable (NIP-01): one event per pubkey and kind, or per pubkey, kind and `d` tag. */
function replaceKey(event) {
  const { kind } = event;
  if (kind === 0 || kind === 3 || (kind >= 10000 && kind < 20000)) return `${event.pubkey}:${kind}`;
  if (kind >= 30000 && kind < 40000) {
    const d = event.tags.find((tag) => tag[0] === 'd')?.[1] ?? '';
    return `${event.pubkey}:${kind}:${d}`;
  }
  return undefined;
}

class MemoryRepository extends EventRepository {
  byId = new Map();
  byReplaceKey = new Map();

  isSearchSupported() {
    return false;
  }

  upsert(event) {
    if (this.byId.has(event.id)) return { isDuplicate: true };
    const key = replaceKey(event);
    if (key) {
      const old = this.byReplaceKey.get(key);
      if (
        old &&
        (old.created_at > event.created_at || (old.created_at === event.created_at && old.id < event.id))
      ) {
        return { isDuplicate: true };
      }
      if (old) this.byId.delete(old.id);
      this.byReplaceKey.set(key, event);
    }
    this.byId.set(event.id, event);
    return { isDuplicate: false };
  }

  find(filter) {
    const found = [...this.byId.values()]
      .filter((event) => EventUtils.isMatchingFilter(event, filter))
      .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1));
    return filter.limit === undefined ? found : found.slice(0, filter.limit);
  }

  async destroy() {}
}

/**
 * What is over `limits` in `event`, in strfry's words (its `events.maxEventSize`, `maxNumTags`,
 * `maxTagValSize`: the event's JSON, the number of tags, every value of a tag), or `undefined`.
 */
function overLimit(event, limits) {
  const bytes = Buffer.byteLength(JSON.stringify(event));
  if (bytes > limits.maxEventBytes) return `event too large: ${bytes}`;
  const tags = Array.isArray(event.tags) ? event.tags : [];
  if (tags.length > limits.maxTags) return `too many tags: ${tags.length}`;
  for (const tag of tags)
    for (const value of Array.isArray(tag) ? tag.slice(1) : []) {
      const size = Buffer.byteLength(String(value));
      if (size > limits.maxTagValueBytes) return `tag val too large: ${size}`;
    }
  return undefined;
}

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    refuse: { type: 'string' },
    silent: { type: 'boolean', default: false },
    limits: { type: 'string' },
  },
});
let silent = values.silent;
process.on('SIGUSR1', () => {
  silent = false;
  process.stdout.write('SIEGEL_RELAY_ANSWERING\n');
});
// No filter-result cache (the library's default keeps each REQ's answer for 1 s): a relay such as strfry
// answers every REQ from its store, so an event stored a moment after the same REQ is found at once.
const relay = new NostrRelay(new MemoryRepository(), { logLevel: 4, filterResultCacheTtl: 0 });
if (values.limits !== undefined) {
  const limits = JSON.parse(values.limits);
  relay.register({
    beforeHandleEvent: (event) => {
      const problem = overLimit(event, limits);
      return problem ? { canHandle: false, message: `invalid: ${problem}` } : { canHandle: true };
    },
  });
}
if (values.refuse !== undefined) {
  const reason = values.refuse;
  relay.register({ beforeHandleEvent: () => ({ canHandle: false, message: `blocked: ${reason}` }) });
}

const server = new WebSocketServer({ host: '127.0.0.1', port: Number(values.port), maxPayload: 1024 * 1024 });
server.on('connection', (socket, request) => {
  relay.handleConnection(socket, request.socket.remoteAddress);
  socket.on('message', async (data) => {
    if (silent) return;
    let message;
    try {
      message = JSON.parse(data.toString());
    } catch {
      socket.send(JSON.stringify(['NOTICE', 'error: invalid JSON']));
      return;
    }
    if (!Array.isArray(message) || typeof message[0] !== 'string') {
      socket.send(JSON.stringify(['NOTICE', 'error: a message is a JSON array']));
      return;
    }
    try {
      await relay.handleMessage(socket, message);
    } catch (error) {
      socket.send(JSON.stringify(['NOTICE', `error: ${error.message}`]));
    }
  });
  socket.on('close', () => relay.handleDisconnect(socket));
  socket.on('error', () => relay.handleDisconnect(socket));
});
server.on('listening', () => {
  const { port } = server.address();
  process.stdout.write(`SIEGEL_RELAY_READY ${JSON.stringify({ url: `ws://127.0.0.1:${port}` })}\n`);
});
const stop = () => {
  for (const client of server.clients) client.terminate();
  server.close(() => relay.destroy().then(() => process.exit(0)));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
