// The NIP-46 client key file, `.siegel-nip46-client.json`: the client keypair a project uses towards NIP-46
// remote signers and the sessions they accepted, read and written here (nip46-signer.ts uses it). Its
// shape is a zod schema, so what the file may hold is written down once and every way it can be wrong
// gets a message naming the field.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type core, z } from 'zod';
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

const hex64 = z.string().regex(HEX64);

/**
 * One accepted session as the file keeps it. Lenient where it always was: relays that are not strings are
 * dropped, and a missing `connectedAt` reads as 0 (it is only shown, never relied on).
 */
const sessionSchema = z.object({
  userPubkey: hex64,
  relays: z
    .array(z.unknown())
    .transform((relays) => relays.filter((relay): relay is string => typeof relay === 'string')),
  connectedAt: z.number().catch(0),
}) satisfies z.ZodType<Nip46Session, unknown>;

/** The file as {@link writeNip46ClientKey} writes it; fields it does not know are ignored. */
const clientKeyFileSchema = z.object({
  version: z.literal(1),
  secretKey: hex64,
  /** By the remote signer's pubkey. */
  sessions: z.record(hex64, sessionSchema),
});

/** The reason in the error for the first thing wrong with the file, naming the field (checked in this order). */
function describeIssue(issue: core.$ZodIssue | undefined): string {
  const [field, remote] = issue?.path ?? [];
  if (field === 'secretKey') return '`secretKey` is not 64 hex characters';
  if (field === 'sessions')
    return remote === undefined ? 'no `sessions` object' : `session \`${String(remote)}\` is malformed`;
  return 'no `version: 1`'; // the version, or a file that is not an object at all
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
  const parsed = clientKeyFileSchema.safeParse(data);
  if (!parsed.success) throw invalid(describeIssue(parsed.error.issues[0]));
  const { secretKey, sessions } = parsed.data;
  return { key: { file, secretKey, sessions }, isNew: false };
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
