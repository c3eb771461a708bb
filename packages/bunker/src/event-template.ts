import type { EventTemplate } from 'nostr-tools/core';
import { BunkerError } from './errors.js';

/**
 * The largest event the bunker signs: 768 KiB, counted as the UTF-8 bytes of its NIP-01 serialisation
 * `[0,pubkey,created_at,kind,tags,content]` (what its id is the SHA-256 of). The WebAssembly engine hashes
 * that serialisation inside a fixed heap of about 1 MiB and fails past ~945 000 bytes; its verifier (used
 * by `@siegel/core` and the file server) fails on the same events. The limit keeps a margin below that, so
 * every event the bunker signs can be verified by every part of Siegel.
 */
export const MAX_EVENT_BYTES = 768 * 1024;

/** The length of a pubkey in the serialisation: 64 hex characters, set by the bunker when it signs. */
const PUBKEY_PLACEHOLDER = '0'.repeat(64);

/**
 * Check one event template from a request: integer `kind` (0–65535) and `created_at` (≥ 0), `tags` an
 * array of arrays of strings, `content` a string, and at most {@link MAX_EVENT_BYTES} once serialised.
 * Other fields (`pubkey`, `id`, `sig`) are ignored: the bunker sets them.
 *
 * @param where - how to name the template in an error, e.g. ``events[3]``.
 * @returns a fresh template holding only the four fields (the input is never mutated).
 * @throws {BunkerError} `invalid_request` naming the field that is wrong; `event_too_large` (413) naming
 *   the template when its serialisation is over {@link MAX_EVENT_BYTES}.
 * @example
 * ```ts
 * parseEventTemplate({ kind: 1, created_at: 1700000000, tags: [], content: 'hi' }, 'event');
 * ```
 */
export function parseEventTemplate(value: unknown, where: string): EventTemplate {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`\`${where}\` must be an object`);
  }
  const { kind, created_at, tags, content } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(kind) || (kind as number) < 0 || (kind as number) > 65535) {
    throw invalid(`\`${where}.kind\` must be an integer from 0 to 65535, got ${show(kind)}`);
  }
  if (!Number.isSafeInteger(created_at) || (created_at as number) < 0) {
    throw invalid(
      `\`${where}.created_at\` must be a non-negative integer (Unix seconds), got ${show(created_at)}`,
    );
  }
  if (!Array.isArray(tags)) throw invalid(`\`${where}.tags\` must be an array, got ${show(tags)}`);
  for (let i = 0; i < tags.length; i++) {
    const tag: unknown = tags[i];
    if (!Array.isArray(tag)) throw invalid(`\`${where}.tags[${i}]\` must be an array of strings`);
    for (let j = 0; j < tag.length; j++) {
      if (typeof tag[j] !== 'string') {
        throw invalid(`\`${where}.tags[${i}][${j}]\` must be a string, got ${show(tag[j])}`);
      }
    }
  }
  if (typeof content !== 'string')
    throw invalid(`\`${where}.content\` must be a string, got ${show(content)}`);
  const template = {
    kind: kind as number,
    created_at: created_at as number,
    tags: (tags as string[][]).map((tag) => [...tag]),
    content,
  };
  const bytes = serializedBytes(template);
  if (bytes > MAX_EVENT_BYTES) {
    throw new BunkerError(
      'event_too_large',
      `\`${where}\` is too large to sign: ${bytes} bytes as a NIP-01 event, the bunker signs events of at most ${MAX_EVENT_BYTES} bytes (768 KiB)`,
    );
  }
  return template;
}

/** The UTF-8 length of the event's NIP-01 serialisation, with a pubkey of the length the bunker sets. */
function serializedBytes(template: EventTemplate): number {
  const { created_at, kind, tags, content } = template;
  return Buffer.byteLength(JSON.stringify([0, PUBKEY_PLACEHOLDER, created_at, kind, tags, content]), 'utf8');
}

function invalid(message: string): BunkerError {
  return new BunkerError('invalid_request', message);
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return '`null`';
  if (typeof value === 'string') return `\`${JSON.stringify(value.slice(0, 40)).slice(1, -1)}\``;
  if (typeof value === 'number') return `\`${value}\``;
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
