// The values the settings are read from and checked against that other rooms use too: the download window, the
// multipart overhead, the lists of origins and public keys. They live here, below every room that uses them,
// so reading the settings (config.ts) imports nothing from the rooms above.
import { decode as decodeNip19 } from 'nostr-tools/nip19';

/** Bytes a download reads from the store at a time (the filesystem store's chunk; S3's are at most 64 KiB). */
export const DOWNLOAD_CHUNK_BYTES = 128 * 1024;

/**
 * What one download may hold at once, reserved from the budget when it starts: the chunk its connection is
 * still sending and the next one, read from the store. A chunk is read only once the connection holds at
 * most one chunk ({@link DOWNLOAD_CHUNK_BYTES}) not yet taken by the operating system.
 */
export const DOWNLOAD_WINDOW_BYTES = 2 * DOWNLOAD_CHUNK_BYTES;

/** The default budget, `MAX_DOWNLOAD_BUFFERED_BYTES`: 256 downloads at once. */
export const DEFAULT_DOWNLOAD_BUFFERED_BYTES = 64 * 1024 * 1024;

/**
 * A serialized origin (`https://host[:port]`, lower case, default port left out, no path), or `undefined`
 * for anything else (a path, a trailing slash, user info, another scheme, `null`).
 */
export function serializedOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return url.origin === value ? value : undefined;
}

/**
 * Read `SIGN_CORS_ORIGINS`: comma-separated serialized origins (blank entries ignored).
 *
 * @throws {Error} for an entry that is not a serialized origin, quoting it.
 */
export function readCorsOrigins(raw: string | undefined): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const origin of origins) {
    if (serializedOrigin(origin) === undefined) {
      throw new Error(
        `SIGN_CORS_ORIGINS must list origins like \`https://app.example\` (scheme, host, port unless the default; no path, no trailing slash), got \`${origin}\``,
      );
    }
  }
  return [...new Set(origins)];
}

/**
 * Read a comma-separated list of Nostr public keys, each an `npub1…` or 64 hex characters, as lowercase hex
 * (without duplicates). `name` is the setting's name, for the error.
 *
 * @throws {Error} quoting the first entry that is no public key.
 */
export function readPubkeys(name: string, raw: string): string[] {
  const pubkeys = new Set<string>();
  for (const entry of raw.split(',').map((value) => value.trim())) {
    if (entry === '') continue;
    if (/^[0-9a-fA-F]{64}$/.test(entry)) {
      pubkeys.add(entry.toLowerCase());
      continue;
    }
    let decoded: ReturnType<typeof decodeNip19> | undefined;
    try {
      decoded = decodeNip19(entry);
    } catch {
      decoded = undefined;
    }
    if (decoded?.type !== 'npub') {
      throw new Error(
        `${name} must list Nostr public keys (npub1… or 64 hex characters), comma-separated; \`${entry}\` is none`,
      );
    }
    pubkeys.add(decoded.data);
  }
  return [...pubkeys];
}

/** Room for multipart boundaries and headers on top of the file itself. */
export const MULTIPART_OVERHEAD = 64 * 1024;
