import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  Actions,
  type EventTemplate as SdkEventTemplate,
  createUploadAuth as sdkCreateUploadAuth,
} from 'blossom-client-sdk';
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { npubEncode } from 'nostr-tools/nip19';
import { createUploadAuth, uploadBlob } from 'nostr-tools/nipb7';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { bytesToHex } from 'nostr-tools/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../integrations/support/example-project.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { readmeBlock } from '../support/readme-blocks.js';
import { type RunningServer, SERVER_FIXTURES, signOverHttp, startServer } from './server-process.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const fixture = (name: string) => readFile(join(SERVER_FIXTURES, name));
const now = () => Math.floor(Date.now() / 1000);

/** A key in SIGN_PUBKEYS as hex, one as npub, and one in neither. */
const allowedKey = generateSecretKey();
const npubKey = generateSecretKey();
const strangerKey = generateSecretKey();
const signerOf = (key: Uint8Array) => async (draft: EventTemplate) => finalizeEvent(draft, key);

/** A Markdown file with an author, unique per call (a new blob for each upload that must be new). */
let markdownCount = 0;
function markdownWithAuthor(): Uint8Array {
  markdownCount++;
  return new TextEncoder().encode(
    `---\nauthor: Rosa Blossom\ntitle: Note ${markdownCount}\n---\n\n# Note ${markdownCount} ${Math.random()}\n`,
  );
}

/** A hand-built kind-24242 event (BUD-11), valid unless told otherwise. */
function authEvent(
  key: Uint8Array,
  options: {
    x?: string[];
    t?: string;
    expiration?: number;
    createdAt?: number;
    servers?: string[];
    content?: string;
  },
): NostrEvent {
  const tags = [
    ['t', options.t ?? 'upload'],
    ['expiration', String(options.expiration ?? now() + 600)],
    ...(options.x ?? []).map((hash) => ['x', hash]),
    ...(options.servers ?? []).map((server) => ['server', server]),
  ];
  return finalizeEvent(
    { kind: 24242, created_at: options.createdAt ?? now(), tags, content: options.content ?? 'Upload Blob' },
    key,
  );
}

/** `Nostr <base64>`: standard base64 with padding, or URL-safe without (as blossom-client-sdk sends it). */
function nostrHeader(event: NostrEvent, urlSafe = false): string {
  const standard = Buffer.from(JSON.stringify(event)).toString('base64');
  return `Nostr ${urlSafe ? standard.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : standard}`;
}

/**
 * `fetch` as is, recording each answer's method and status: the Blossom clients return only the descriptor,
 * and the test needs to know whether the server answered 201 or 200.
 */
const seen: Array<{ method: string; url: string; status: number }> = [];
const realFetch = globalThis.fetch;

describe('Blossom uploads (BUD-02, BUD-06, BUD-11) against the real server and bunker', () => {
  let bunker: RunningBunker;
  let server: RunningServer;
  let signerPubkey: string;

  beforeAll(async () => {
    bunker = await useBunker();
    server = await startServer({
      bunker,
      env: {
        SIGN_RATE_LIMIT: '1000',
        SIGN_PUBKEYS: `${getPublicKey(allowedKey)}, ${npubEncode(getPublicKey(npubKey))}`,
        MAX_UPLOAD_BYTES: String(1024 * 1024),
      },
    });
    globalThis.fetch = async (input, init) => {
      const response = await realFetch(input, init);
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      seen.push({
        method,
        url: String(input instanceof Request ? input.url : input),
        status: response.status,
      });
      return response;
    };
  });
  afterAll(async () => {
    globalThis.fetch = realFetch;
    await server?.stop();
    await bunker?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  /** The status of the last `PUT /upload` answer. */
  const lastPutStatus = () => seen.filter((call) => call.method === 'PUT').at(-1)?.status;

  async function verify(hash: string) {
    const response = await realFetch(`${server.url}/api/verify?hash=${hash}`);
    // biome-ignore lint/suspicious/noExplicitAny: the test reads deep into the JSON answer
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  it("nostr-tools' uploadBlob with createUploadAuth: 201 with nip94 tags, 200 again, 401 for a key not listed; the file verifies", async () => {
    const bytes = await fixture('png-author.png');
    const hash = sha256(bytes);
    const blob = new Blob([bytes], { type: 'image/png' });
    const auth = await createUploadAuth(signerOf(allowedKey), hash, { servers: server.url });
    expect(auth.tags).toContainEqual(['server', '127.0.0.1']);

    const descriptor = (await uploadBlob(server.url, blob, { auth })) as unknown as Record<
      string,
      unknown
    > & {
      nip94: string[][];
      event: NostrEvent;
    };
    expect(lastPutStatus()).toBe(201);
    expect(descriptor).toMatchObject({
      url: `${server.url}/${hash}.png`,
      sha256: hash,
      size: bytes.byteLength,
      type: 'image/png',
    });
    expect(typeof descriptor.uploaded).toBe('number');
    expect(descriptor.nip94).toContainEqual(['x', hash]);
    expect(descriptor.nip94).toContainEqual(['author', 'Jürgen Müller']);
    expect(descriptor.nip94).toContainEqual(['p', getPublicKey(allowedKey)]);
    signerPubkey = descriptor.event.pubkey;
    expect(signerPubkey).not.toBe(getPublicKey(allowedKey)); // the service's key signs, the uploader is named
    // The bytes are kept exactly as received.
    expect(sha256(new Uint8Array(await (await realFetch(descriptor.url as string)).arrayBuffer()))).toBe(
      hash,
    );

    // The same blob again, with the same authorization (it names this blob): 200, the same signed event.
    const again = (await uploadBlob(server.url, blob, { auth })) as unknown as { event: NostrEvent };
    expect(lastPutStatus()).toBe(200);
    expect(again.event.id).toBe(descriptor.event.id);

    // A key not in SIGN_PUBKEYS: 401 with X-Reason (nostr-tools puts it in its error).
    const strangerAuth = await createUploadAuth(signerOf(strangerKey), hash);
    await expect(uploadBlob(server.url, blob, { auth: strangerAuth })).rejects.toThrow(
      `upload returned error (401): The key ${npubEncode(getPublicKey(strangerKey))} may not upload here`,
    );

    const { status, body } = await verify(hash);
    expect(status).toBe(200);
    expect(body.verified).toBe(true);
    expect(body.checks).toEqual({
      event_id: true,
      signature: true,
      hash_tag: true,
      fields: true,
      file: true,
    });
    expect(body.metadata.authors).toEqual(['Jürgen Müller']);
    expect(body.uploader).toEqual({
      pubkey: getPublicKey(allowedKey),
      npub: npubEncode(getPublicKey(allowedKey)),
    });
    expect(body.event.tags).toContainEqual(['p', getPublicKey(allowedKey)]);
    // The event page names the uploader apart from the signer.
    const page = await (await realFetch(`${server.url}/events/${hash}/`)).text();
    expect(page).toContain('Uploaded by (Nostr public key, Blossom)');
    expect(page).toContain(`<dd class="uploader"><code>${npubEncode(getPublicKey(allowedKey))}</code>`);
  });

  it('blossom-client-sdk (HEAD preflight, URL-safe base64 auth): 201, 200 again, 401 for a key not listed', async () => {
    const bytes = await fixture('jpeg-multi-author.jpg');
    const hash = sha256(bytes);
    const blob = new Blob([bytes], { type: 'image/jpeg' });
    const onAuth = (key: Uint8Array) => async (server: string, blobHash: string) =>
      sdkCreateUploadAuth(signerOf(key) as (draft: SdkEventTemplate) => Promise<NostrEvent>, blobHash, {
        servers: server,
      });
    seen.length = 0;
    // The key given as npub in SIGN_PUBKEYS.
    const descriptor = await Actions.uploadBlob(server.url, blob, { auth: true, onAuth: onAuth(npubKey) });
    expect(seen.map((call) => `${call.method} ${call.status}`)).toEqual(['HEAD 200', 'PUT 201']);
    expect(descriptor).toMatchObject({ sha256: hash, size: bytes.byteLength, type: 'image/jpeg' });
    const nip94 = (descriptor as unknown as { nip94: string[][] }).nip94;
    expect(nip94).toContainEqual(['x', hash]);
    expect(nip94.filter((tag) => tag[0] === 'author')).toEqual([
      ['author', 'Ana Lima'],
      ['author', 'Björn Ødegård'],
      ['author', '山田 花子'],
    ]);
    expect(nip94).toContainEqual(['p', getPublicKey(npubKey)]);

    seen.length = 0;
    await Actions.uploadBlob(server.url, blob, { auth: true, onAuth: onAuth(npubKey) });
    expect(seen.map((call) => `${call.method} ${call.status}`)).toEqual(['HEAD 200', 'PUT 200']);

    seen.length = 0;
    const refused = await Actions.uploadBlob(server.url, blob, {
      auth: true,
      onAuth: onAuth(strangerKey),
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // blossom-client-sdk's HTTPError: the status, and X-Reason as the message.
    expect((refused as Error).constructor.name).toBe('HTTPError');
    expect((refused as Error & { status: number }).status).toBe(401);
    expect((refused as Error).message).toContain('may not upload here; the operator lists allowed keys');
    // Its preflight was refused as the upload was.
    expect(seen.map((call) => `${call.method} ${call.status}`)).toEqual(['HEAD 401', 'PUT 401']);

    const { body } = await verify(hash);
    expect(body.verified).toBe(true);
    expect(body.uploader.pubkey).toBe(getPublicKey(npubKey));
  });

  // Issue 39, item 7: blossom-client-sdk's own README example fails (`uploadBlob` is no export of 5.1.0).
  // The server README's snippet is run as a file, as written, by Node against this server.
  it("the server README's blossom-client-sdk snippet uploads and prints the file's URL and authors", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'siegel-blossom-readme-'));
    try {
      const snippet = readmeBlock('server/README.md', 'js', "import { readFile } from 'node:fs/promises';");
      await writeFile(join(dir, 'upload.mjs'), snippet);
      // Its imports resolve as in a project that installed blossom-client-sdk and nostr-tools.
      await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const bytes = await fixture('jpeg-multi-author.jpg');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['upload.mjs', join(SERVER_FIXTURES, 'jpeg-multi-author.jpg')],
        {
          cwd: dir,
          timeout: 30_000,
          env: {
            PATH: process.env.PATH,
            SIEGEL_SERVER_URL: server.url,
            NOSTR_SECRET_KEY: bytesToHex(allowedKey),
          },
        },
      );
      const line = stdout.trim();
      const url = line.slice(0, line.indexOf(' '));
      expect(url).toContain(sha256(bytes));
      expect(JSON.parse(line.slice(url.length + 1))).toEqual([
        ['author', 'Ana Lima'],
        ['author', 'Björn Ødegård'],
        ['author', '山田 花子'],
      ]);
      expect((await verify(sha256(bytes))).body.verified).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  /** PUT /upload with `bytes` and an Authorization header; the answer's status, X-Reason and JSON. */
  async function put(bytes: Uint8Array, authorization: string, headers: Record<string, string> = {}) {
    const response = await realFetch(`${server.url}/upload`, {
      method: 'PUT',
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: { Authorization: authorization, ...headers },
    });
    // biome-ignore lint/suspicious/noExplicitAny: the test reads deep into the JSON answer
    const body = (await response.json()) as Record<string, any>;
    return {
      status: response.status,
      reason: response.headers.get('X-Reason'),
      body,
      headers: response.headers,
    };
  }

  it('refuses hand-built authorization events that are expired, not for uploads, for other blobs or servers, or badly signed', async () => {
    const bytes = markdownWithAuthor();
    const hash = sha256(bytes);
    const md = { 'Content-Type': 'text/markdown' };
    const cases: Array<[string, NostrEvent, string]> = [
      [
        'expired',
        authEvent(allowedKey, { x: [hash], expiration: now() - 5 }),
        'The authorization event expired at',
      ],
      ['no expiration', { ...authEvent(allowedKey, { x: [hash] }) }, ''],
      ['wrong t', authEvent(allowedKey, { x: [hash], t: 'get' }), 'its `t` tag is `get`, not `upload`'],
      [
        'x not matching',
        authEvent(allowedKey, { x: ['ab'.repeat(32)] }),
        'The authorization event is for other blobs',
      ],
      ['no x', authEvent(allowedKey, {}), 'names no blob'],
      [
        'another server',
        authEvent(allowedKey, { x: [hash], servers: ['blossom.example.com'] }),
        'is for other servers (`blossom.example.com`), not `127.0.0.1`',
      ],
      [
        'created in the future',
        authEvent(allowedKey, { x: [hash], createdAt: now() + 3600 }),
        'created in the future',
      ],
      [
        'wrong kind',
        finalizeEvent({ kind: 27235, created_at: now(), tags: [['t', 'upload']], content: '' }, allowedKey),
        'of kind 27235, not 24242',
      ],
    ];
    // Without an expiration tag: rebuild the event without it.
    const withoutExpiration = finalizeEvent(
      {
        kind: 24242,
        created_at: now(),
        tags: [
          ['t', 'upload'],
          ['x', hash],
        ],
        content: 'Upload Blob',
      },
      allowedKey,
    );
    cases[1] = ['no expiration', withoutExpiration, 'has no `expiration` tag'];
    const forged = authEvent(allowedKey, { x: [hash] });
    const badSignature = {
      ...forged,
      sig: `${forged.sig.slice(0, -2)}${forged.sig.endsWith('00') ? '11' : '00'}`,
    };
    cases.push(['bad signature', badSignature, 'has no valid id and signature']);
    const altered = { ...forged, content: 'Upload something else' };
    cases.push(['altered content', altered, 'has no valid id and signature']);

    for (const [name, event, reason] of cases) {
      const answer = await put(bytes, nostrHeader(event), md);
      expect(answer.status, name).toBe(401);
      expect(answer.body.error, name).toBe('UNAUTHORIZED');
      expect(answer.reason, name).toContain(reason);
      expect(answer.headers.get('Access-Control-Allow-Origin'), name).toBe('*');
      expect(answer.headers.get('Access-Control-Expose-Headers'), name).toContain('X-Reason');
    }
    for (const header of [
      'Nostr not*base64',
      `Nostr ${Buffer.from('{"kind":24242}').toString('base64')}`,
      '',
    ]) {
      const answer = await put(bytes, header, md);
      expect(answer.status, header).toBe(401);
      expect(answer.reason, header).toMatch(
        /base64-encoded JSON event|Uploading needs `Authorization: Nostr/,
      );
    }
    // Nothing of these was signed.
    expect((await verify(hash)).status).toBe(404);
  });

  // Issue 34: `expiration` 1e12 and a `created_at` in 2001 were accepted, so a leaked event uploaded its blobs
  // for ever. The window is one hour each way (docs/server-api.md, Blossom), 60 s of clock skew ahead.
  it('bounds the window of an authorization event: expiration at most an hour ahead, created_at within the last hour', async () => {
    const bytes = markdownWithAuthor();
    const hash = sha256(bytes);
    const md = { 'Content-Type': 'text/markdown' };
    const cases: Array<[string, NostrEvent, string]> = [
      [
        'expiration 1e12',
        authEvent(allowedKey, { x: [hash], expiration: 1e12 }),
        'is more than 60 minutes ahead',
      ],
      [
        'expiration an hour and 2 minutes ahead',
        authEvent(allowedKey, { x: [hash], expiration: now() + 3600 + 120 }),
        'is more than 60 minutes ahead',
      ],
      [
        'created_at in 2001',
        authEvent(allowedKey, { x: [hash], createdAt: 1_000_000_000 }),
        'was created at 2001-09-09T01:46:40.000Z, more than 60 minutes ago',
      ],
      [
        'created_at an hour and 2 minutes ago',
        authEvent(allowedKey, { x: [hash], createdAt: now() - 3600 - 120 }),
        'more than 60 minutes ago',
      ],
      [
        'created_at in 2286',
        authEvent(allowedKey, { x: [hash], createdAt: 9_999_999_999 }),
        'created in the future',
      ],
      [
        'created_at 5 minutes ahead',
        authEvent(allowedKey, { x: [hash], createdAt: now() + 300 }),
        'created in the future',
      ],
    ];
    for (const [name, event, reason] of cases) {
      const answer = await put(bytes, nostrHeader(event), md);
      expect(answer.status, name).toBe(401);
      expect(answer.body.error, name).toBe('UNAUTHORIZED');
      expect(answer.reason, name).toContain(reason);
    }
    expect((await verify(hash)).status).toBe(404);

    // Within the window: nostr-tools' default (an hour ahead) from a clock 30 s fast, created 50 minutes ago.
    const fast = await put(
      bytes,
      nostrHeader(authEvent(allowedKey, { x: [hash], createdAt: now() + 30, expiration: now() + 3630 })),
      md,
    );
    expect(fast.status, fast.reason ?? '').toBe(201);
    const second = markdownWithAuthor();
    const older = await put(
      second,
      nostrHeader(
        authEvent(allowedKey, { x: [sha256(second)], createdAt: now() - 3000, expiration: now() + 60 }),
      ),
      md,
    );
    expect(older.status, older.reason ?? '').toBe(201);
  });

  it('accepts URL-safe base64 without padding and a server tag naming this server (also as a URL)', async () => {
    // Find a file whose event encodes with `+` or `/` and padding in standard base64, so the URL-safe form
    // really differs from it.
    let bytes = markdownWithAuthor();
    let attempt = 0;
    const eventFor = (file: Uint8Array) =>
      authEvent(allowedKey, {
        x: [sha256(file)],
        servers: ['127.0.0.1'],
        // `?`, `~` and `>` give `/` and `+` in standard base64 at some offsets; lengths vary offset and padding.
        content: `${'!'.repeat(attempt % 3)}Upload blob? ~> ✓${'.'.repeat(Math.floor(attempt / 3) % 3)}`,
      });
    let event = eventFor(bytes);
    const differs = (candidate: NostrEvent) => {
      const standard = Buffer.from(JSON.stringify(candidate)).toString('base64');
      return /[+/]/.test(standard) && standard.endsWith('=');
    };
    while (!differs(event) && attempt < 100) {
      attempt++;
      bytes = markdownWithAuthor();
      event = eventFor(bytes);
    }
    const urlSafe = nostrHeader(event, true);
    expect(urlSafe).toMatch(/[-_]/);
    expect(urlSafe).not.toMatch(/[+/=]/);
    const answer = await put(bytes, urlSafe, { 'Content-Type': 'text/markdown; charset=utf-8' });
    expect(answer.status, answer.reason ?? '').toBe(201);
    expect(answer.body).toMatchObject({ sha256: sha256(bytes), type: 'text/markdown' });
    expect(answer.body.nip94).toContainEqual(['author', 'Rosa Blossom']);

    // Standard base64 with padding, a server tag written as a URL, and a second `x` for another blob.
    const second = markdownWithAuthor();
    const withUrl = authEvent(allowedKey, {
      x: ['cd'.repeat(32), sha256(second)],
      servers: ['https://other.example', `${server.url}/`],
    });
    const ok = await put(second, nostrHeader(withUrl), { 'Content-Type': 'text/markdown' });
    expect(ok.status, ok.reason ?? '').toBe(201);
  });

  it('HEAD /upload answers what the upload would get, with X-Reason', async () => {
    const bytes = await fixture('gif-author.gif');
    const hash = sha256(bytes);
    const head = async (authorization: string | undefined, headers: Record<string, string>) => {
      const response = await realFetch(`${server.url}/upload`, {
        method: 'HEAD',
        headers: { ...(authorization === undefined ? {} : { Authorization: authorization }), ...headers },
      });
      return { status: response.status, reason: response.headers.get('X-Reason') };
    };
    const auth = nostrHeader(authEvent(allowedKey, { x: [hash] }));
    const good = {
      'X-SHA-256': hash,
      'X-Content-Length': String(bytes.byteLength),
      'X-Content-Type': 'image/gif',
    };
    expect(await head(auth, good)).toEqual({ status: 200, reason: null });
    expect(await head(auth, { ...good, 'X-Content-Type': 'application/octet-stream' })).toEqual({
      status: 200,
      reason: null,
    });
    expect(await head(undefined, good)).toMatchObject({
      status: 401,
      reason: expect.stringContaining('Uploading needs'),
    });
    expect(await head(nostrHeader(authEvent(strangerKey, { x: [hash] })), good)).toMatchObject({
      status: 401,
      reason: expect.stringContaining('may not upload here'),
    });
    expect(await head(auth, { ...good, 'X-SHA-256': sha256(new Uint8Array([1])) })).toMatchObject({
      status: 401,
      reason: expect.stringContaining('is for other blobs'),
    });
    expect(await head(auth, { ...good, 'X-SHA-256': 'nothex' })).toMatchObject({
      status: 400,
      reason: expect.stringContaining('`X-SHA-256` must be'),
    });
    const { 'X-Content-Length': _, ...noLength } = good;
    expect(await head(auth, noLength)).toMatchObject({
      status: 411,
      reason: expect.stringContaining('`X-Content-Length`'),
    });
    expect(await head(auth, { ...good, 'X-Content-Length': String(2 * 1024 * 1024) })).toMatchObject({
      status: 413,
      reason: 'The file is larger than the limit of 1048576 bytes',
    });
    expect(await head(auth, { ...good, 'X-Content-Type': 'video/mp4' })).toMatchObject({
      status: 415,
      reason: expect.stringContaining('`video/mp4` is not a supported type'),
    });
    // A sign token works for the preflight too.
    expect(await head(`Bearer ${server.token}`, good)).toEqual({ status: 200, reason: null });
    // HEAD signs nothing.
    expect((await verify(hash)).status).toBe(404);
  });

  it('answers CORS for any origin on /upload only, preflight with Authorization included', async () => {
    const preflight = await realFetch(`${server.url}/upload`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': 'authorization,content-type,x-sha-256',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(preflight.headers.get('Access-Control-Allow-Methods')).toContain('PUT');
    expect(preflight.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('authorization');
    // Other routes get no CORS from this.
    const signPreflight = await realFetch(`${server.url}/api/sign-image-v2`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(signPreflight.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('a file without an author: 422 with X-Reason, nothing stored; a sign token uploads without a p tag', async () => {
    const noAuthor = await fixture('png-no-author.png');
    const refused = await put(noAuthor, nostrHeader(authEvent(allowedKey, { x: [sha256(noAuthor)] })));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('AUTHOR_REQUIRED');
    expect(refused.reason).toContain(`\`${sha256(noAuthor)}.png\` names no author`);
    expect((await verify(sha256(noAuthor))).status).toBe(404);

    const bytes = await fixture('webp-author.webp');
    const answer = await put(bytes, `Bearer ${server.token}`);
    expect(answer.status).toBe(201);
    expect(answer.body.nip94).toContainEqual(['author', 'Wei Chen']);
    expect(answer.body.nip94.some((tag: string[]) => tag[0] === 'p')).toBe(false);
    const { body } = await verify(sha256(bytes));
    expect(body.verified).toBe(true);
    expect(body.uploader).toBeUndefined();
    expect(await (await realFetch(`${server.url}/events/${sha256(bytes)}/`)).text()).not.toContain(
      'Uploaded by',
    );

    const wrongToken = await put(bytes, 'Bearer not-a-token');
    expect(wrongToken).toMatchObject({ status: 401, reason: 'The sign token is not valid' });
  });

  it('shares one rate limit with the sign API: past SIGN_RATE_LIMIT an upload gets 429 with X-Reason', async () => {
    const limited = await startServer({
      bunker,
      env: { SIGN_RATE_LIMIT: '2', SIGN_PUBKEYS: getPublicKey(allowedKey) },
    });
    try {
      const bytes = await fixture('gif-author.gif');
      const signed = await signOverHttp(limited, 'gif-author.gif', bytes);
      expect(signed.status).toBe(200);
      const auth = nostrHeader(authEvent(allowedKey, { x: [sha256(bytes)] }));
      const second = await realFetch(`${limited.url}/upload`, {
        method: 'PUT',
        body: bytes,
        headers: { Authorization: auth },
      });
      expect(second.status).toBe(200); // signed a moment ago through the sign API
      const third = await realFetch(`${limited.url}/upload`, {
        method: 'PUT',
        body: bytes,
        headers: { Authorization: auth },
      });
      expect(third.status).toBe(429);
      expect(third.headers.get('Retry-After')).toMatch(/^\d+$/);
      expect(third.headers.get('X-Reason')).toMatch(/^Too many uploads from this client; retry in \d+ s$/);
    } finally {
      await limited.stop();
      await rm(limited.dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start with an entry in SIGN_PUBKEYS that is no public key', async () => {
    await expect(startServer({ bunker, env: { SIGN_PUBKEYS: 'npub1notakey' } })).rejects.toThrow(
      'SIGN_PUBKEYS must list Nostr public keys (npub1… or 64 hex characters), comma-separated; `npub1notakey` is none',
    );
  });
});
