import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SiegelError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { HEX64 } from '../nostr/crypto.js';

/** What a NIP-46 remote signer told this client once it accepted it: the key it signs as. */
export interface Nip46Session {
  /** Hex pubkey the remote signer signs as (its `get_public_key`). */
  userPubkey: string;
  /** The relays of the `bunker://` URI the session was made on. */
  relays: string[];
  /** When `connect` succeeded, in Unix seconds. */
  connectedAt: number;
}

/**
 * The NIP-46 client keypair of a project and the remote signers that accepted it, kept in one file beside
 * the cache (`.siegel-nip46-client.json`, mode 0600). The secret key is made once and reused, so a remote
 * signer asks its user for approval once, not on every build. A secret: never commit it.
 */
export interface Nip46ClientKey {
  /** Where it is kept. */
  file: string;
  /** Hex secret key of the client keypair (not the signing key: that stays in the remote signer). */
  secretKey: string;
  /** Sessions by the remote signer's pubkey (the host of its `bunker://` URI). */
  sessions: Record<string, Nip46Session>;
}

/**
 * Read the client key file, or make a new key (not yet written) when there is none.
 *
 * @example
 * ```ts
 * const key = await readNip46ClientKey('/site/.siegel-nip46-client.json');
 * ```
 * @throws {SiegelError} `io_error` when the file cannot be read; `invalid_options` when it is not a client
 * key file (it is left as it is: deleting it means the remote signer asks for approval again).
 */
export async function readNip46ClientKey(file: string): Promise<{ key: Nip46ClientKey; isNew: boolean }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { key: { file, secretKey: randomBytes(32).toString('hex'), sessions: {} }, isNew: true };
    }
    throw new SiegelError('io_error', `Cannot read the NIP-46 client key \`${file}\``, { cause: error });
  }
  const invalid = (why: string) =>
    new SiegelError(
      'invalid_options',
      `The NIP-46 client key \`${file}\` is not valid (${why}). Fix or delete it: a new key makes the remote signer ask for approval again.`,
    );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw invalid('not JSON');
  }
  const record = data as { version?: unknown; secretKey?: unknown; sessions?: unknown } | null;
  if (record?.version !== 1) throw invalid('no `version: 1`');
  if (typeof record.secretKey !== 'string' || !HEX64.test(record.secretKey))
    throw invalid('`secretKey` is not 64 hex characters');
  const sessions: Record<string, Nip46Session> = {};
  if (typeof record.sessions !== 'object' || record.sessions === null) throw invalid('no `sessions` object');
  for (const [remote, value] of Object.entries(record.sessions as Record<string, unknown>)) {
    const session = value as Partial<Nip46Session> | null;
    if (
      !HEX64.test(remote) ||
      typeof session?.userPubkey !== 'string' ||
      !HEX64.test(session.userPubkey) ||
      !Array.isArray(session.relays)
    )
      throw invalid(`session \`${remote}\` is malformed`);
    sessions[remote] = {
      userPubkey: session.userPubkey,
      relays: session.relays.filter((relay): relay is string => typeof relay === 'string'),
      connectedAt: typeof session.connectedAt === 'number' ? session.connectedAt : 0,
    };
  }
  return { key: { file, secretKey: record.secretKey, sessions }, isNew: false };
}

/**
 * Write the client key file atomically (a temporary file renamed over it), readable by its owner only.
 * @throws {SiegelError} `io_error` when it cannot be written.
 */
export async function writeNip46ClientKey(key: Nip46ClientKey): Promise<void> {
  const text = `${JSON.stringify({ version: 1, secretKey: key.secretKey, sessions: key.sessions }, null, 2)}\n`;
  try {
    await mkdir(dirname(key.file), { recursive: true });
    await writeFileAtomic(key.file, text, { mode: 0o600 });
  } catch (error) {
    throw new SiegelError('io_error', `Cannot write the NIP-46 client key \`${key.file}\``, { cause: error });
  }
}
