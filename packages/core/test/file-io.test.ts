import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChunkReader,
  type FileIo,
  FileWorker,
  inProcessFileIo,
  PageTooLargeError,
} from '../src/fs/file-io.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-file-io-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

// The same contract for the worker thread (what signSite uses) and the libuv fallback.
const implementations: Array<[string, () => FileIo]> = [
  ['FileWorker', () => FileWorker.create() as FileIo],
  ['inProcessFileIo', () => inProcessFileIo],
];

describe.each(implementations)('%s', (name, make) => {
  let io: FileIo;
  let dir: string;
  beforeAll(async () => {
    io = make();
    dir = await mkdtemp(join(root, `${name}-`));
  });
  afterAll(() => io.close());

  it('is the real worker thread where the worker is named (the built script exists)', () => {
    expect(io instanceof FileWorker).toBe(name === 'FileWorker');
  });

  it('makes directories, writes in place and replaces atomically, in order, leaving no temp file', async () => {
    const page = join(dir, 'a', 'index.html');
    const hashes = await io.run([
      { op: 'mkdir', path: join(dir, 'a') },
      { op: 'write', path: page, data: 'first' },
      { op: 'replace', path: page, data: Buffer.from('<p>ä second</p>') },
      { op: 'mkdir', path: join(dir, 'b', 'c') },
      { op: 'write', path: join(dir, 'b', 'c', 'e.json'), data: new TextEncoder().encode('{"x":1}') },
    ]);
    expect(await readFile(page, 'utf8')).toBe('<p>ä second</p>');
    expect(await readFile(join(dir, 'b', 'c', 'e.json'), 'utf8')).toBe('{"x":1}');
    expect(await readdir(join(dir, 'a'))).toEqual(['index.html']);
    // Each op's hash is the SHA-256 of what it wrote (strings as UTF-8), '' for a mkdir: the site manifest
    // takes the run's own files' hashes from here.
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(hashes).toEqual(['', sha256('first'), sha256('<p>ä second</p>'), '', sha256('{"x":1}')]);
    expect(hashes[2]).toBe(
      createHash('sha256')
        .update(await readFile(page))
        .digest('hex'),
    );
  });

  it('many jobs at once (batched into few messages) all land with their own bytes', async () => {
    const jobs = Array.from({ length: 300 }, (_, index) =>
      io.run([
        { op: 'replace', path: join(dir, `p${index}.html`), data: Buffer.from(`page ${index} `.repeat(500)) },
      ]),
    );
    await Promise.all(jobs);
    for (const index of [0, 150, 299]) {
      expect(await readFile(join(dir, `p${index}.html`), 'utf8')).toBe(`page ${index} `.repeat(500));
    }
  });

  it('rejects with the fs error and its code, runs none of the later ops, and keeps working', async () => {
    const after = join(dir, 'never.txt');
    const error = await io
      .run([
        { op: 'write', path: join(dir, 'missing', 'x.txt'), data: 'x' },
        { op: 'write', path: after, data: 'y' },
      ])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect((error as Error).message).toMatch(/missing/);
    expect(await readdir(dir)).not.toContain('never.txt');
    // A failed replace leaves the old file whole and no temp file behind.
    const kept = join(dir, 'kept.html');
    await writeFile(kept, 'old');
    const onDirectory = await io
      .run([{ op: 'replace', path: join(dir, 'a'), data: 'over a directory' }])
      .catch((caught: unknown) => caught);
    expect(onDirectory).toBeInstanceOf(Error);
    expect((await readdir(join(dir))).filter((entry) => entry.endsWith('.tmp'))).toEqual([]);
    await io.run([{ op: 'write', path: kept, data: 'new' }]);
    expect(await readFile(kept, 'utf8')).toBe('new');
  });

  it('takes one buffer in two jobs of the same batch (transferred once)', async () => {
    const bytes = Buffer.from(new Uint8Array(8_192).fill(0x61).buffer);
    await Promise.all([
      io.run([{ op: 'write', path: join(dir, 'same-1.txt'), data: bytes }]),
      io.run([{ op: 'replace', path: join(dir, 'same-2.txt'), data: bytes }]),
    ]);
    expect(await readFile(join(dir, 'same-1.txt'), 'utf8')).toBe('a'.repeat(8_192));
    expect(await readFile(join(dir, 'same-2.txt'), 'utf8')).toBe('a'.repeat(8_192));
  });

  it("keeps the replaced file's mode (regression: a 0600 page became 0644); a new file gets the default", async () => {
    const probe = join(dir, 'probe.txt');
    await writeFile(probe, 'x');
    const defaultMode = (await stat(probe)).mode & 0o7777; // 0666 less this process's umask
    const modes = [0o600, 0o644, 0o640, 0o755, 0o400];
    await Promise.all(
      modes.map(async (mode) => {
        await writeFile(join(dir, `mode-${mode.toString(8)}.html`), 'old');
        await chmod(join(dir, `mode-${mode.toString(8)}.html`), mode);
      }),
    );
    await io.run([
      ...modes.map((mode) => ({
        op: 'replace' as const,
        path: join(dir, `mode-${mode.toString(8)}.html`),
        data: Buffer.from('new'),
      })),
      { op: 'replace', path: join(dir, 'mode-new.html'), data: 'fresh' },
    ]);
    for (const mode of modes) {
      const path = join(dir, `mode-${mode.toString(8)}.html`);
      expect(await readFile(path, 'utf8')).toBe('new');
      expect(((await stat(path)).mode & 0o7777).toString(8)).toBe(mode.toString(8));
    }
    expect(((await stat(join(dir, 'mode-new.html'))).mode & 0o7777).toString(8)).toBe(
      defaultMode.toString(8),
    );
  });

  it('writes a Uint8Array that is a view into a larger buffer exactly (only the view)', async () => {
    const shared = Buffer.from('xxxxHELLOyyyy');
    await io.run([{ op: 'write', path: join(dir, 'view.txt'), data: shared.subarray(4, 9) }]);
    expect(await readFile(join(dir, 'view.txt'), 'utf8')).toBe('HELLO');
  });
});

describe('ChunkReader', () => {
  it('reads whole files and gives an unreadable one its error in its place', async () => {
    const a = join(root, 'read-a.html');
    await writeFile(a, 'é'.repeat(10_000));
    const [bytes, missing, directory] = new ChunkReader().read([a, join(root, 'nope.html'), root]);
    expect(Buffer.isBuffer(bytes) && bytes.toString('utf8')).toBe('é'.repeat(10_000));
    expect((missing as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect((directory as NodeJS.ErrnoException).code).toBe('EISDIR');
  });

  it('keeps every view of a chunk intact while it grows past its first buffer, and reuses it after', async () => {
    const sizes = [300_000, 5, 900_000, 0, 1_500_000, 70_000];
    const paths = await Promise.all(
      sizes.map(async (size, index) => {
        const path = join(root, `chunk-${index}.bin`);
        await writeFile(path, Buffer.alloc(size, 97 + index));
        return path;
      }),
    );
    const reader = new ChunkReader();
    const first = reader.read(paths) as Buffer[];
    sizes.forEach((size, index) => {
      expect(first[index]?.length).toBe(size);
      expect(first[index]?.every((byte) => byte === 97 + index)).toBe(true);
    });
    // The next chunk reuses the memory: views of the previous one are no longer valid, new ones are right.
    const [again] = reader.read([paths[1] as string]) as Buffer[];
    expect(again?.toString()).toBe('bbbbb');
  });

  it('gives a file over 1 MiB a buffer of its own (kept, not copied), and refuses one over the limit unread', async () => {
    const small = join(root, 'own-small.html');
    const large = join(root, 'own-large.html');
    const huge = join(root, 'own-huge.html');
    await writeFile(small, 'small');
    await writeFile(large, Buffer.alloc(1_500_000, 0x62));
    await writeFile(huge, Buffer.alloc(3_000_001, 0x63));
    const reader = new ChunkReader({ maxBytes: 3_000_000 });
    const [a, b, c] = reader.read([small, large, huge]);
    expect(reader.owns(a as Buffer)).toBe(false);
    expect(reader.owns(b as Buffer)).toBe(true);
    expect((b as Buffer).length).toBe(1_500_000);
    // Its own memory, exactly: a parse worker takes it over without a copy.
    expect((b as Buffer).buffer.byteLength).toBe(1_500_000);
    expect(c).toBeInstanceOf(PageTooLargeError);
    expect((c as Error).message).toBe(
      'page too large: 2.9 MiB (`3000001` bytes), more than the limit of 2.9 MiB (`3000000` bytes); it was not read — raise the limit with `maxPageBytes`, `--max-page-bytes` or SIEGEL_MAX_PAGE_BYTES',
    );
    // The next chunk does not take the large page's memory back.
    reader.read([small]);
    expect((b as Buffer).every((byte) => byte === 0x62)).toBe(true);
  });
});
