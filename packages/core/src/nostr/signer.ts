// What a signer is, for every room that holds or calls one: the Signer interface. Its implementations and how a
// run picks one live in signer/; options/ and pipeline/ only need this shape.
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';

/**
 * Something that signs Nostr events with one key: the HTTP bunker ({@link HttpBunkerSigner}, the default),
 * a NIP-46 remote signer ({@link Nip46Signer}) or a local key ({@link LocalKeySigner}, for tests and
 * offline use).
 */
export interface Signer {
  /** Hex public key of the key this signer signs with. */
  getPublicKey(): Promise<string>;
  /**
   * Sign a batch of templates; resolves to the signed events in the same order. Rejects with a
   * `SiegelError` of code `event_refused` when the signer refuses (some of) these templates but signs others
   * — `signSite` then signs the batch in halves to find the refused ones and fails only their pages; any
   * other error stops the run.
   */
  signEvents(templates: EventTemplate[]): Promise<NostrEvent[]>;
  /** Optional pre-flight check (the key exists and can sign) without signing anything. */
  check?(): Promise<void>;
  /**
   * Optional, for a signer whose `check` cannot tell that the key signs now (a NIP-46 signer cannot ask
   * whether the key behind it is locked): prove it by signing. `signSite` calls it once, before it writes a
   * page that needs no new signature while nothing was signed yet in the run, so that a run that cannot
   * sign writes nothing. Rejects as `signEvents` does.
   */
  probe?(): Promise<void>;
  /** Optional: release connections (a NIP-46 signer's relays). `signSite` calls it for signers it made. */
  close?(): Promise<void>;
}

export type { EventTemplate, NostrEvent } from 'nostr-tools/core';
