import type { MiddlewareHandler } from 'hono';
import type { NostrEvent } from 'nostr-tools/core';
import { normalizeServerTag } from 'nostr-tools/nipb7';
import { validateEvent, verifyEvent } from 'nostr-tools/pure';
import { readPubkeys } from '../../config/setting-values.js';
import { isoTime, npubOf } from '../../records/describe-record.js';
import { ApiError } from '../api-error.js';
import { signAuth } from './sign-auth.js';

export { readPubkeys };

/** Kind of Blossom authorization events (BUD-11). */
export const BLOSSOM_AUTH_KIND = 24242;
/** How far an authorization event's `created_at` may lie in the future (clocks differ), in seconds. */
export const AUTH_CLOCK_SKEW_SECONDS = 60;
/**
 * The longest an authorization event is good for, in seconds: its `expiration` at most this far ahead (plus
 * {@link AUTH_CLOCK_SKEW_SECONDS}), its `created_at` at most this far back. BUD-11 asks only for an
 * `expiration` in the future and leaves the window to the server; without a bound a leaked event
 * (`expiration` 1e12, or one signed years ago) uploads its blobs forever. One hour is what nostr-tools
 * (`createUploadAuth`) and blossom-client-sdk write by default.
 */
export const AUTH_MAX_LIFETIME_SECONDS = 60 * 60;
/** Longest `Authorization: Nostr` value read (a kind-24242 event is a few hundred bytes). */
const MAX_AUTH_CHARS = 16 * 1024;

/**
 * Who is uploading, as {@link blossomAuth} leaves it in the context: a Nostr key from `SIGN_PUBKEYS` with
 * the blobs (`x` tags) its authorization event names, or a sign token (`pubkey` undefined: any blob).
 */
export interface BlossomUploader {
  /** The uploader's pubkey (hex), or `undefined` for `Authorization: Bearer`. */
  pubkey: string | undefined;
  /** SHA-256 hashes (lowercase hex) the event allows uploading; `undefined` for `Authorization: Bearer`. */
  blobs: readonly string[] | undefined;
}

/** What {@link readBlossomAuth} checks an authorization event against. */
export interface BlossomAuthCheck {
  /** Pubkeys (hex) allowed to upload (`SIGN_PUBKEYS`). */
  pubkeys: readonly string[];
  /** This server's host name (of `BASE_URL`), which a `server` tag must name when there is one. */
  host: string;
  /** The time now, in Unix seconds (default: the clock). */
  now?: number;
}

function refuse(message: string): never {
  throw new ApiError(401, 'UNAUTHORIZED', message);
}

/**
 * Decode the value of `Authorization: Nostr <value>`: a JSON event in base64, standard (`+/`) or URL-safe
 * (`-_`), with or without `=` padding — real clients send all of these (nostr-tools `btoa`, others
 * base64url). Node's base64 decoder reads both alphabets and missing padding; the value is checked against
 * the alphabet first, since that decoder skips characters it does not know instead of refusing them.
 */
function decodeAuthEvent(value: string): NostrEvent {
  const bad = 'The `Authorization: Nostr` value is not a base64-encoded JSON event (kind 24242)';
  if (value.length > MAX_AUTH_CHARS || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) refuse(bad);
  let event: unknown;
  try {
    const json = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'base64'));
    event = JSON.parse(json);
  } catch {
    refuse(bad);
  }
  const signed = event as Partial<NostrEvent>;
  if (!validateEvent(event) || typeof signed.id !== 'string' || typeof signed.sig !== 'string') refuse(bad);
  return event as NostrEvent;
}

/** The values of an event's `name` tags. */
function tagValues(event: NostrEvent, name: string): string[] {
  return event.tags
    .filter((tag) => tag[0] === name && typeof tag[1] === 'string')
    .map((tag) => tag[1] as string);
}

/**
 * Check a Blossom upload authorization (BUD-11): `value` is what follows `Authorization: Nostr`. The event
 * must be of kind 24242 with a valid id and Schnorr signature (nostr-tools `verifyEvent`), `t` = `upload`,
 * `created_at` not more than {@link AUTH_CLOCK_SKEW_SECONDS} ahead nor more than
 * {@link AUTH_MAX_LIFETIME_SECONDS} back, an `expiration` in the future but not more than
 * {@link AUTH_MAX_LIFETIME_SECONDS} (plus the skew) ahead, at least one `x` tag (the blobs it allows), and — when it has `server` tags — one naming `check.host`; its pubkey
 * must be one of `check.pubkeys`. Whether the blob is one of its `x` tags is {@link requireBlob}'s check,
 * once the hash is known. The same event may be sent again for the blobs it names until it expires.
 *
 * @throws {ApiError} 401 `UNAUTHORIZED` saying which check failed.
 */
export function readBlossomAuth(value: string, check: BlossomAuthCheck): BlossomUploader {
  const event = decodeAuthEvent(value);
  const now = check.now ?? Math.floor(Date.now() / 1000);
  if (event.kind !== BLOSSOM_AUTH_KIND) {
    refuse(`The authorization event is of kind ${event.kind}, not ${BLOSSOM_AUTH_KIND} (Blossom)`);
  }
  let signed = false;
  try {
    signed = verifyEvent(event);
  } catch {
    signed = false;
  }
  if (!signed) refuse('The authorization event has no valid id and signature; sign it again');
  const verbs = tagValues(event, 't');
  if (!verbs.includes('upload')) {
    refuse(
      `The authorization event is not for uploads: its \`t\` tag is ${verbs.length === 0 ? 'missing' : `\`${verbs.join('`, `')}\``}, not \`upload\``,
    );
  }
  if (event.created_at > now + AUTH_CLOCK_SKEW_SECONDS) {
    refuse(
      `The authorization event was created in the future (${isoTime(event.created_at)}; it is ${isoTime(now)}); check the clock`,
    );
  }
  if (event.created_at < now - AUTH_MAX_LIFETIME_SECONDS) {
    refuse(
      `The authorization event was created at ${isoTime(event.created_at)}, more than ${AUTH_MAX_LIFETIME_SECONDS / 60} minutes ago (it is ${isoTime(now)}); sign a new one`,
    );
  }
  const expiration = tagValues(event, 'expiration')[0];
  if (expiration === undefined || !/^\d{1,15}$/.test(expiration)) {
    refuse('The authorization event has no `expiration` tag (a Unix time); add one a few minutes ahead');
  }
  if (Number(expiration) <= now) {
    refuse(`The authorization event expired at ${isoTime(Number(expiration))}; sign a new one`);
  }
  if (Number(expiration) > now + AUTH_MAX_LIFETIME_SECONDS + AUTH_CLOCK_SKEW_SECONDS) {
    refuse(
      `The authorization event's \`expiration\` (${isoTime(Number(expiration))}) is more than ${AUTH_MAX_LIFETIME_SECONDS / 60} minutes ahead (it is ${isoTime(now)}); this server takes events good for an hour at most`,
    );
  }
  const servers = tagValues(event, 'server');
  if (servers.length > 0 && !servers.some((server) => namesHost(server, check.host))) {
    refuse(
      `The authorization event is for other servers (\`${servers.join('`, `')}\`), not \`${check.host}\``,
    );
  }
  if (!check.pubkeys.includes(event.pubkey)) {
    refuse(
      check.pubkeys.length === 0
        ? 'This server takes no Nostr-signed uploads (SIGN_PUBKEYS is empty); use `Authorization: Bearer` with a sign token'
        : `The key ${npubOf(event.pubkey)} may not upload here; the operator lists allowed keys in SIGN_PUBKEYS`,
    );
  }
  const blobs = tagValues(event, 'x').map((hash) => hash.toLowerCase());
  if (blobs.length === 0) {
    refuse('The authorization event names no blob: add an `x` tag with the SHA-256 of the file');
  }
  return { pubkey: event.pubkey, blobs };
}

/** Whether a `server` tag names `host`: a host name as BUD-11 writes it, or a URL (as some clients do). */
function namesHost(server: string, host: string): boolean {
  return normalizeServerTag(server.trim()) === host || server.trim().toLowerCase() === host;
}

/**
 * Refuse a blob the uploader's authorization event does not name (no `x` tag is `hash`). A sign token
 * (`Authorization: Bearer`) may upload any blob.
 *
 * @throws {ApiError} 401 `UNAUTHORIZED`.
 */
export function requireBlob(uploader: BlossomUploader, hash: string): void {
  if (uploader.blobs === undefined || uploader.blobs.includes(hash)) return;
  refuse(
    `The authorization event is for other blobs (\`x\` ${uploader.blobs.map((blob) => `\`${blob.slice(0, 12)}...\``).join(', ')}), not \`${hash}\``,
  );
}

/** Options of {@link blossomAuth}. */
export interface BlossomAuthOptions extends Omit<BlossomAuthCheck, 'now'> {
  /** Tokens that may upload too (`SIGN_API_TOKENS`, `Authorization: Bearer`). */
  signTokens: readonly string[];
}

/**
 * Require `Authorization: Nostr <base64 kind-24242 event>` from a key in `SIGN_PUBKEYS`
 * ({@link readBlossomAuth}), or `Authorization: Bearer` with a sign token (`signAuth`, the sign API's own
 * check). Puts the {@link BlossomUploader} in the context as `uploader`. Checked before a byte of the body
 * is read. Refusals are 401 `UNAUTHORIZED`.
 */
export function blossomAuth(
  options: BlossomAuthOptions,
): MiddlewareHandler<{ Variables: { uploader: BlossomUploader } }> {
  const bearer = signAuth(options.signTokens);
  const host = options.host.toLowerCase();
  return async function blossomAuthMiddleware(c, next) {
    const header = c.req.header('Authorization') ?? '';
    const nostr = /^Nostr\s+(\S+)\s*$/i.exec(header);
    if (nostr !== null) {
      c.set('uploader', readBlossomAuth(nostr[1] as string, { pubkeys: options.pubkeys, host }));
      return next();
    }
    if (!/^Bearer\s/i.test(header)) {
      refuse(
        'Uploading needs `Authorization: Nostr <base64 kind-24242 event>` from a key in SIGN_PUBKEYS, or `Authorization: Bearer <token>` (a SIGN_API_TOKENS token)',
      );
    }
    c.set('uploader', { pubkey: undefined, blobs: undefined });
    return bearer(c, next);
  };
}
