import { readFile } from 'node:fs/promises';
import { BunkerError } from './errors.js';

/**
 * Read a passphrase from a file: its whole content less one trailing newline (`\n` or `\r\n`).
 *
 * @throws {BunkerError} `invalid_request` when the file cannot be read or is empty (its content is never quoted).
 */
export async function readPassphraseFile(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new BunkerError('invalid_request', `Cannot read the passphrase file \`${path}\``, { cause });
  }
  const passphrase = text.replace(/\r?\n$/, '');
  if (passphrase === '') throw new BunkerError('invalid_request', `The passphrase file \`${path}\` is empty`);
  return passphrase;
}

/**
 * The start passphrase from the environment: `BUNKER_PASSPHRASE`, else the file named by
 * `BUNKER_PASSPHRASE_FILE`, else none.
 */
export async function passphraseFromEnv(
  env: Record<string, string | undefined>,
): Promise<string | undefined> {
  if (env.BUNKER_PASSPHRASE) return env.BUNKER_PASSPHRASE;
  if (env.BUNKER_PASSPHRASE_FILE) return readPassphraseFile(env.BUNKER_PASSPHRASE_FILE);
  return undefined;
}

/**
 * Ask for a passphrase on the terminal without echoing it.
 *
 * @throws {BunkerError} `invalid_request` when stdin is not a terminal.
 */
export async function promptPassphrase(prompt: string): Promise<string> {
  const { stdin, stderr } = process;
  if (!stdin.isTTY) {
    throw new BunkerError(
      'invalid_request',
      'No passphrase: give `--passphrase-file FILE`, or set `BUNKER_PASSPHRASE` / `BUNKER_PASSPHRASE_FILE`',
    );
  }
  stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          done();
          resolve(value);
          return;
        }
        if (char === '\u0003') {
          done();
          reject(new BunkerError('invalid_request', 'Cancelled'));
          return;
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}

/** Read all of stdin as text (for `--import -`), less surrounding whitespace. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}
