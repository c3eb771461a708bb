import type { EventTemplate } from 'nostr-tools/core';
import { BunkerError } from './errors.js';

/**
 * Check one event template from a request: integer `kind` (0–65535) and `created_at` (≥ 0), `tags` an
 * array of arrays of strings, `content` a string. Other fields (`pubkey`, `id`, `sig`) are ignored: the
 * bunker sets them.
 *
 * @param where - how to name the template in an error, e.g. ``events[3]``.
 * @returns a fresh template holding only the four fields (the input is never mutated).
 * @throws {BunkerError} `invalid_request` naming the field that is wrong.
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
  return {
    kind: kind as number,
    created_at: created_at as number,
    tags: (tags as string[][]).map((tag) => [...tag]),
    content,
  };
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
