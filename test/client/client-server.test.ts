// Issue 26, acceptance 1 (Node): @siegel/client signs, inspects, verifies and reads records against the
// real server process over HTTP (a real bunker behind it); the server's error answers arrive as the typed
// errors with their codes; upload progress is counted while the body streams.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthorRequiredError,
  createClient,
  embedAuthor,
  FileTooLargeError,
  InvalidFormatError,
  InvalidHashError,
  NetworkError,
  NotFoundError,
  SiegelApiError,
  type SiegelClient,
  UnauthorizedError,
  type UploadProgress,
} from '../../packages/client/src/index.js';
import { type RunningServer, startServer } from '../server/server-process.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { freePort } from '../support/free-port.js';

const MAX_UPLOAD_BYTES = 3 * 1024 * 1024;
let bunker: RunningBunker;
let server: RunningServer;
let client: SiegelClient;
let photo: Uint8Array;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A PNG of random pixels (so it does not compress): about `side`² × 3 bytes. */
async function noisePng(side: number): Promise<Uint8Array> {
  const pixels = new Uint8Array(side * side * 3);
  crypto.getRandomValues(pixels.subarray(0, 65_536));
  for (let offset = 65_536; offset < pixels.length; offset += 65_536) {
    crypto.getRandomValues(pixels.subarray(offset, Math.min(pixels.length, offset + 65_536)));
  }
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

beforeAll(async () => {
  bunker = await useBunker();
  server = await startServer({
    bunker,
    env: { SIGN_RATE_LIMIT: '1000', MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) },
  });
  client = createClient({ baseUrl: server.url, token: server.token });
  const plain = await sharp({ create: { width: 9, height: 7, channels: 3, background: '#2e8b57' } })
    .png()
    .toBuffer();
  photo = await embedAuthor(plain, { author: ['Ana Lima', 'Björn Ødegård'], title: 'Harbour' });
});
afterAll(async () => {
  await server?.stop();
  await bunker?.stop();
  if (server) await rm(server.dataDir, { recursive: true, force: true });
});

describe('@siegel/client against the real server', () => {
  it('inspects, signs, signs again (already signed: the existing record), verifies and reads the record', async () => {
    const hash = sha256(photo);
    const before = await client.inspect(photo, { fileName: 'harbour.png' });
    expect(before).toMatchObject({
      success: true,
      file_name: 'harbour.png',
      hash,
      mime_type: 'image/png',
      signable: true,
      already_signed: false,
      dimensions: { width: 9, height: 7 },
      metadata: { authors: ['Ana Lima', 'Björn Ødegård'], title: 'Harbour', author_source: 'xmp:dc:creator' },
    });

    const signed = await client.sign(photo, { fileName: 'harbour.png' });
    expect(signed.alreadySigned).toBe(false);
    expect(signed).toMatchObject({ success: true, hash, file_type: 'image', size_bytes: photo.length });
    expect(signed.event.tags).toContainEqual(['x', hash]);
    expect(signed.signer.pubkey).toBe(bunker.pubkey);

    // The same bytes again, as a Blob this time: nothing new is signed; the existing record comes back.
    const again = await client.sign(new Blob([photo as Uint8Array<ArrayBuffer>]), {
      fileName: 'harbour.png',
    });
    expect(again.alreadySigned).toBe(true);
    if (!again.alreadySigned) throw new Error('unreachable');
    expect(again.message).toContain(signed.event.id);
    expect(again.event).toEqual(signed.event);
    expect(again.metadata).toEqual({
      author: 'Ana Lima, Björn Ødegård',
      authors: ['Ana Lima', 'Björn Ødegård'],
      title: 'Harbour',
    });
    expect(again.urls).toEqual(signed.urls);

    const after = await client.inspect(
      photo.buffer.slice(photo.byteOffset, photo.byteOffset + photo.length) as ArrayBuffer,
    );
    expect(after).toMatchObject({
      hash,
      signable: false,
      already_signed: true,
      urls: signed.urls,
      file_name: 'upload.png',
    });

    const verdict = await client.verify(`SHA256:${hash.toUpperCase()}`);
    expect(verdict.found).toBe(true);
    if (!verdict.found) throw new Error('unreachable');
    expect(verdict).toMatchObject({ verified: true, hash, reasons: [] });
    expect(verdict.checks).toEqual({
      event_id: true,
      signature: true,
      hash_tag: true,
      fields: true,
      file: true,
    });
    expect(verdict.event.id).toBe(signed.event.id);

    const record = await client.record(hash);
    expect(record).toEqual({
      hash,
      file_type: 'image',
      mime_type: 'image/png',
      size_bytes: photo.length,
      dimensions: { width: 9, height: 7 },
      metadata: again.metadata,
      signer: signed.signer,
      signed_at: signed.signed_at,
      urls: signed.urls,
      event: signed.event,
    });
  });

  it('answers an unknown hash as not found: verify with `found: false`, record with NotFoundError', async () => {
    const unknown = 'ab'.repeat(32);
    expect(await client.verify(unknown)).toMatchObject({
      found: false,
      verified: false,
      hash: unknown,
      sign_url: `${server.url}/tools/sign`,
    });
    const error = await client.record(unknown).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('throws the typed error of each server code, with its status, message and extra fields', async () => {
    const unsigned = await sharp({ create: { width: 5, height: 5, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const authorRequired = await client
      .sign(unsigned, { fileName: 'anonymous.png' })
      .catch((caught: unknown) => caught);
    expect(authorRequired).toBeInstanceOf(AuthorRequiredError);
    expect(authorRequired).toMatchObject({
      code: 'AUTHOR_REQUIRED',
      status: 422,
      name: 'AuthorRequiredError',
    });
    expect((authorRequired as Error).message).toMatch(/author/i);

    const notAFile = await client
      .sign(new TextEncoder().encode('%!PS-Adobe-3.0\n'), { fileName: 'x.ps' })
      .catch((caught: unknown) => caught);
    expect(notAFile).toBeInstanceOf(InvalidFormatError);
    expect(notAFile).toMatchObject({ code: 'INVALID_FORMAT', status: 415 });
    expect((notAFile as InvalidFormatError).supported).toContain('image/png');

    const broken = await client
      .sign(photo.subarray(0, 60), { fileName: 'broken.png' })
      .catch((caught: unknown) => caught);
    expect(broken).toMatchObject({ code: 'INVALID_FORMAT', status: 422 });

    const tooLarge = await client
      .sign(await noisePng(1100), { fileName: 'big.png' })
      .catch((caught: unknown) => caught);
    expect(tooLarge).toBeInstanceOf(FileTooLargeError);
    expect((tooLarge as FileTooLargeError).maxBytes).toBe(MAX_UPLOAD_BYTES);

    const wrongToken = createClient({ baseUrl: server.url, token: 'not-a-token' });
    const unauthorized = await wrongToken.inspect(photo).catch((caught: unknown) => caught);
    expect(unauthorized).toBeInstanceOf(UnauthorizedError);
    expect(unauthorized).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    const noToken = await createClient({ baseUrl: server.url })
      .sign(photo)
      .catch((caught: unknown) => caught);
    expect(noToken).toBeInstanceOf(UnauthorizedError);

    const badHash = await client.verify('not-a-hash').catch((caught: unknown) => caught);
    expect(badHash).toBeInstanceOf(InvalidHashError);
    expect(badHash).toMatchObject({ code: 'INVALID_HASH', status: 400, details: { verified: false } });
    // record() checks the hash itself: its route would answer a bad one with a bare 404.
    await expect(client.record('xyz')).rejects.toBeInstanceOf(InvalidHashError);
  });

  it('a server that is not there gives NetworkError with the cause', async () => {
    const nowhere = createClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, token: 't' });
    const error = await nowhere.verify('ab'.repeat(32)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toBeInstanceOf(SiegelApiError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', status: undefined });
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it('reports upload progress as the body streams, up to the whole body, and the server signs it', async () => {
    const large = await embedAuthor(await noisePng(700), { author: 'Ana Lima' });
    expect(large.length).toBeGreaterThan(1024 * 1024);
    const progress: UploadProgress[] = [];
    const result = await client.sign(new File([large as Uint8Array<ArrayBuffer>], 'noise.png'), {
      onProgress: (step) => progress.push(step),
    });
    expect(result.alreadySigned).toBe(false);
    expect(result.hash).toBe(sha256(large));
    const total = progress[0]?.total ?? 0;
    expect(total).toBeGreaterThan(large.length); // the file and its multipart framing
    expect(progress.every((step) => step.total === total)).toBe(true);
    expect(progress.at(-1)?.loaded).toBe(total);
    // Counted piece by piece (64 KiB each), not only at the start and the end.
    expect(progress.length).toBeGreaterThanOrEqual(Math.ceil(total / 65_536));
    for (let i = 1; i < progress.length; i++) {
      expect((progress[i] as UploadProgress).loaded).toBeGreaterThan(
        (progress[i - 1] as UploadProgress).loaded,
      );
    }
  });
});
