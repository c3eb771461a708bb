import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readNip46ClientKey, writeNip46ClientKey } from '../src/signer/nip46-client-key.js';

// `.siegel-nip46-client.json` (src/signer/nip46-client-key.ts): what is accepted, what each wrong file is
// told, and that a written file reads back. The end-to-end run with a remote signer is in
// test/nostr/nip46-client.test.ts.

let dir: string;
let file: string;
const secretKey = 'ab'.repeat(32);
const remote = '2'.repeat(64);
const userPubkey = '3'.repeat(64);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'siegel-nip46-key-'));
  file = join(dir, '.siegel-nip46-client.json');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const session = { userPubkey, relays: ['wss://relay.example'], connectedAt: 1_700_000_000 };

describe('the NIP-46 client key file', () => {
  it('makes a new key when there is none, and reads back what it wrote (owner-only)', async () => {
    const made = await readNip46ClientKey(file);
    expect(made.isNew).toBe(true);
    expect(made.key.secretKey).toMatch(/^[0-9a-f]{64}$/);
    await writeNip46ClientKey({ ...made.key, sessions: { [remote]: session } });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const read = await readNip46ClientKey(file);
    expect(read).toEqual({
      key: { file, secretKey: made.key.secretKey, sessions: { [remote]: session } },
      isNew: false,
    });
    expect(JSON.parse(await readFile(file, 'utf8')).version).toBe(1);
  });

  it('reads leniently where it always did: relays that are not strings dropped, no `connectedAt` as 0, unknown fields ignored', async () => {
    await writeFile(
      file,
      JSON.stringify({
        version: 1,
        secretKey,
        later: true,
        sessions: { [remote]: { userPubkey, relays: ['wss://a.example', 7, null], note: 'x' } },
      }),
    );
    const { key } = await readNip46ClientKey(file);
    expect(key.sessions).toEqual({ [remote]: { userPubkey, relays: ['wss://a.example'], connectedAt: 0 } });
  });

  it('names what is wrong with a file that is not a client key, and leaves it as it is', async () => {
    const cases: Array<[string, string]> = [
      ['{', 'not JSON'],
      ['[]', 'no `version: 1`'],
      ['null', 'no `version: 1`'],
      [JSON.stringify({ version: 2, secretKey, sessions: {} }), 'no `version: 1`'],
      [
        JSON.stringify({ version: 1, secretKey: secretKey.toUpperCase(), sessions: {} }),
        '`secretKey` is not 64 hex characters',
      ],
      [JSON.stringify({ version: 1, secretKey: 5, sessions: {} }), '`secretKey` is not 64 hex characters'],
      [JSON.stringify({ version: 1, secretKey }), 'no `sessions` object'],
      [JSON.stringify({ version: 1, secretKey, sessions: null }), 'no `sessions` object'],
      // An empty array passed for no sessions before the schema (`typeof [] === 'object'`).
      [JSON.stringify({ version: 1, secretKey, sessions: [] }), 'no `sessions` object'],
      [
        JSON.stringify({ version: 1, secretKey, sessions: { nothex: session } }),
        'session `nothex` is malformed',
      ],
      [
        JSON.stringify({ version: 1, secretKey, sessions: { [remote]: { ...session, userPubkey: 'x' } } }),
        `session \`${remote}\` is malformed`,
      ],
      [
        JSON.stringify({ version: 1, secretKey, sessions: { [remote]: { ...session, relays: 'wss://a' } } }),
        `session \`${remote}\` is malformed`,
      ],
      [
        JSON.stringify({ version: 1, secretKey, sessions: { [remote]: null } }),
        `session \`${remote}\` is malformed`,
      ],
      // The first thing wrong is named: the version before the key, the key before the sessions.
      [JSON.stringify({ version: 0, secretKey: 'x', sessions: null }), 'no `version: 1`'],
      [
        JSON.stringify({ version: 1, secretKey: 'x', sessions: null }),
        '`secretKey` is not 64 hex characters',
      ],
    ];
    for (const [text, why] of cases) {
      await writeFile(file, text);
      await expect(readNip46ClientKey(file), text).rejects.toMatchObject({
        code: 'invalid_options',
        message: `The NIP-46 client key \`${file}\` is not valid (${why}). Fix or delete it: a new key makes the remote signer ask for approval again.`,
      });
      expect(await readFile(file, 'utf8')).toBe(text);
    }
  });
});
