// One check for every event a signer hands back, whichever signer it is (the HTTP bunker, a NIP-46 signer, a
// local key, or a custom `Signer` passed to `signSite`): the signing run calls it once per event, and no
// signer repeats it. A signer is trusted with nothing but its signature: what it returns must be exactly the
// template it was given, signed by the run's key.
import { randomInt } from 'node:crypto';
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { computeEventId, type SigningEngine } from '../nostr/crypto.js';
import { isEventShape } from '../nostr/event-shape.js';
import { verifyEventSignature } from '../nostr/verify-signature.js';

/** How {@link checkSignedEvents} checks a batch. */
export interface CheckSignedEventsOptions {
  /** The run's signer pubkey (hex): every event must carry it. */
  pubkey: string;
  /** The Schnorr engine. */
  engine: SigningEngine;
  /**
   * Schnorr signatures verified per batch, at random positions (default `DEFAULTS.verifySignatures`, 16;
   * `Infinity` verifies all). Every other field, and every id, is checked for every event.
   */
  verifySignatures: number;
  /** Picks the positions (default {@link pickSample}; for tests). */
  pickSample?: (length: number, count: number) => Iterable<number>;
}

/**
 * What is wrong with `value` as the signed form of `template`, or `undefined` when nothing is: the shape of
 * a signed event, then kind, content, created_at, tags, pubkey and id, each against the template and the
 * key — and the Schnorr signature when `verifySignature`.
 *
 * @example
 * ```ts
 * checkSignedEvent(template, event, { pubkey, engine, verifySignature: true }); // undefined when it matches
 * ```
 */
export function checkSignedEvent(
  template: EventTemplate,
  value: unknown,
  options: { pubkey: string; engine: SigningEngine; verifySignature: boolean },
): string | undefined {
  if (!isEventShape(value)) return 'it is not a signed Nostr event';
  const event = value;
  for (const field of ['kind', 'content', 'created_at'] as const)
    if (event[field] !== template[field]) return `its \`${field}\` differs from the template's`;
  if (JSON.stringify(event.tags) !== JSON.stringify(template.tags))
    return "its tags differ from the template's";
  if (event.pubkey !== options.pubkey)
    return `it is signed by \`${event.pubkey}\`, not by the run's key \`${options.pubkey}\``;
  if (event.id !== computeEventId(event)) return 'its id does not match its content';
  if (options.verifySignature && !verifyEventSignature(options.engine, event))
    return 'its Schnorr signature does not verify';
  return undefined;
}

/**
 * Check a batch a signer returned against its templates ({@link checkSignedEvent}); signatures at
 * `verifySignatures` random positions. Each result is the event, reduced to the NIP-01 fields (nothing a
 * signer adds is written into a page or a cache), or an `Error` saying why that page's event cannot be used.
 * Errors the signer gave for single templates (`event_refused`) pass through.
 *
 * @example
 * ```ts
 * const checked = checkSignedEvents(templates, await signer.signEvents(templates), { pubkey, engine, verifySignatures: 16 });
 * ```
 */
export function checkSignedEvents(
  templates: readonly EventTemplate[],
  results: ReadonlyArray<NostrEvent | Error>,
  options: CheckSignedEventsOptions,
): Array<NostrEvent | Error> {
  const sample = new Set(
    options.verifySignatures >= results.length
      ? results.keys()
      : (options.pickSample ?? pickSample)(results.length, options.verifySignatures),
  );
  return results.map((result, i) => {
    if (result instanceof Error) return result;
    const template = templates[i] as EventTemplate;
    const problem = checkSignedEvent(template, result, { ...options, verifySignature: sample.has(i) });
    if (problem)
      return new Error(`the signer returned an event that does not match what was asked: ${problem}`);
    const { id, pubkey, created_at, kind, tags, content, sig } = result;
    return { id, pubkey, created_at, kind, tags, content, sig };
  });
}

/**
 * `count` distinct random positions in `0 … length − 1` (all of them when `count ≥ length`), drawn with
 * `node:crypto` so a signer cannot predict which signatures are checked.
 */
export function pickSample(length: number, count: number): number[] {
  if (count >= length) return Array.from({ length }, (_, i) => i);
  const picked = new Set<number>();
  while (picked.size < count) picked.add(randomInt(length));
  return [...picked];
}
