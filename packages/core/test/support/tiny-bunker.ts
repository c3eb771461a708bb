import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventTemplate } from 'nostr-tools/core';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';

/**
 * A tiny real HTTP server speaking the bunker API v1 (or only the compat routes of existing bunkers), to
 * pin the client's handling of each answer. The real bunker process is exercised in test/site.
 */
export interface TinyBunker {
  url: string;
  token: string;
  pubkey: string;
  /** `METHOD path` of every request, in order. */
  requests: string[];
  /** Mutable behaviour. */
  state: {
    locked: boolean;
    /** Answer this many next requests with 503. */
    failNext: number;
    /** Largest accepted batch; bigger ones get 413. */
    maxBatch: number;
    /** Never answer (to test timeouts). */
    hang: boolean;
    /** Corrupt signatures. */
    tamper: boolean;
    /** Corrupt only the signature at this position of each batch (id, pubkey and the others stay valid). */
    tamperAt: number | undefined;
    /** With `tamperAt`: corrupt only events of this kind (e.g. the pages' 1063, not the site manifest). */
    tamperKind: number | undefined;
    /**
     * Refuse every request that holds an event whose JSON is longer than `bytes`, with `status` (413: the
     * real bunker's answer; 500: what it answered before it checked the size).
     */
    refuseLarge: { bytes: number; status: number } | undefined;
  };
  close(): Promise<void>;
}

export async function startTinyBunker(
  options: { compatOnly?: boolean; keyName?: string } = {},
): Promise<TinyBunker> {
  const secretKey = generateSecretKey();
  const pubkey = getPublicKey(secretKey);
  const keyName = options.keyName ?? 'default';
  const token = 'tiny-token';
  const requests: string[] = [];
  const state: TinyBunker['state'] = {
    locked: false,
    failNext: 0,
    maxBatch: 10_000,
    hang: false,
    tamper: false,
    tamperAt: undefined,
    tamperKind: undefined,
    refuseLarge: undefined,
  };
  const sign = (template: EventTemplate, index = 0) => {
    const event = finalizeEvent(template, secretKey);
    const tampered =
      state.tamperAt === index && (state.tamperKind === undefined || state.tamperKind === template.kind);
    return state.tamper || tampered
      ? { ...event, sig: event.sig.replace(/^./, event.sig[0] === 'a' ? 'b' : 'a') }
      : event;
  };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(`${req.method} ${path}`);
    if (state.hang) return;
    if (state.failNext > 0) {
      state.failNext--;
      return send(res, 503, { error: { code: 'internal_error', message: 'busy' } });
    }
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(res, 401, { error: { code: 'unauthorized', message: 'no' } });
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const events: unknown[] = body?.events ?? (body?.event ? [body.event] : []);
    const large = state.refuseLarge;
    if (large && events.some((event) => JSON.stringify(event).length > large.bytes)) {
      const [code, message] =
        large.status === 413
          ? ['event_too_large', 'The event is too large']
          : ['internal_error', 'Internal error'];
      return send(res, large.status, { error: { code, message } });
    }
    if (options.compatOnly) {
      if (req.method === 'POST' && path === '/api/sign') {
        if (body.keyName !== keyName) return send(res, 404, { success: false, error: 'Key not found' });
        if (state.locked) return send(res, 423, { success: false, error: 'Key is locked' });
        return send(res, 200, { success: true, event: sign(body.event) });
      }
      if (req.method === 'GET' && path === '/api/status') {
        return send(res, 200, { keys: { active: state.locked ? 0 : 1, locked: state.locked ? 1 : 0 } });
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 Not Found');
      return;
    }
    if (req.method === 'GET' && path === '/api/keys') {
      return send(res, 200, [{ name: keyName, pubkey, npub: 'npub…', locked: state.locked, created_at: 1 }]);
    }
    const match = /^\/api\/keys\/([^/]+)\/sign$/.exec(path);
    if (req.method === 'POST' && match) {
      if (decodeURIComponent(match[1] ?? '') !== keyName) {
        return send(res, 404, { error: { code: 'key_not_found', message: 'Key not found' } });
      }
      if (state.locked) return send(res, 423, { error: { code: 'key_locked', message: 'Key is locked' } });
      if (body.events.length > state.maxBatch)
        return send(res, 413, { error: { code: 'batch_too_large', message: 'too many' } });
      return send(res, 200, { events: body.events.map((t: EventTemplate, i: number) => sign(t, i)) });
    }
    send(res, 404, { error: { code: 'not_found', message: 'Not found' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    pubkey,
    requests,
    state,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
