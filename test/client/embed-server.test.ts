// Issue 26, acceptance 2: embedAuthor's output for each of the six formats — PNG, JPEG, WebP, GIF, PDF and
// Markdown/TXT, on files real writers made — is read back with the given authors and title by exiftool and
// by the real server process (signed through @siegel/client over HTTP, against a real bunker).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, embedAuthor, type SiegelClient } from '../../packages/client/src/index.js';
import {
  AUTHOR_CASES,
  IMAGE_KINDS,
  readWithExiftool,
  TEXTS,
  writeImages,
  writePdfs,
} from '../../packages/client/test/support/inputs.js';
import { type RunningServer, startServer } from '../server/server-process.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';

let bunker: RunningBunker;
let server: RunningServer;
let client: SiegelClient;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'siegel-client-embed-server-'));
  bunker = await useBunker();
  server = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '1000' } });
  client = createClient({ baseUrl: server.url, token: server.token });
});
afterAll(async () => {
  await server?.stop();
  await bunker?.stop();
  if (server) await rm(server.dataDir, { recursive: true, force: true });
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('embedAuthor output, signed by the real server', () => {
  it('the server and exiftool read the embedded authors and title of all six formats', async () => {
    const images = await writeImages();
    const pdfs = await writePdfs();
    const inputs: Array<{ name: string; bytes: Uint8Array; exiftool: boolean }> = [
      ...Object.entries(IMAGE_KINDS).map(([kind, extension]) => ({
        name: `${kind}.${extension}`,
        bytes: images[kind as keyof typeof IMAGE_KINDS],
        exiftool: true,
      })),
      { name: 'object-streams.pdf', bytes: pdfs.objectStreams, exiftool: true },
      { name: 'classic.pdf', bytes: pdfs.classic, exiftool: true },
      // exiftool reads no YAML frontmatter: the server (and embed-text.test.ts's YAML parser) read these.
      { name: 'post.md', bytes: new TextEncoder().encode(TEXTS.markdown), exiftool: false },
      { name: 'notes.txt', bytes: new TextEncoder().encode(TEXTS.text), exiftool: false },
    ];
    const written = new Map<string, { authors: string[]; title: string }>();
    let signed = 0;
    for (const input of inputs) {
      for (const { id, author, authors, title } of AUTHOR_CASES) {
        const bytes = await embedAuthor(input.bytes, { author, title });
        const result = await client.sign(bytes, { fileName: input.name });
        const what = `${input.name} ${id}`;
        expect(result.alreadySigned, what).toBe(false);
        expect({ authors: result.metadata.authors, title: result.metadata.title }, what).toEqual({
          authors,
          title,
        });
        if (!result.alreadySigned && result.file_type === 'image') {
          expect(result.metadata.author_source, what).toBe('xmp:dc:creator');
        }
        signed++;
        if (input.exiftool) {
          const path = join(dir, `${id}-${input.name}`);
          await writeFile(path, bytes);
          written.set(path, { authors, title });
        }
      }
    }
    expect(signed).toBe(inputs.length * AUTHOR_CASES.length);
    const readings = await readWithExiftool([...written.keys()]);
    for (const [path, want] of written) {
      const reading = readings.get(path);
      expect({ creators: reading?.creators, title: reading?.title }, path).toEqual({
        creators: want.authors,
        title: want.title,
      });
      if (path.endsWith('.pdf')) {
        expect({ author: reading?.pdfAuthor, title: reading?.pdfTitle }, path).toEqual({
          author: want.authors.join('; '),
          title: want.title,
        });
      }
    }
  });
});
