/**
 * The messages between the content script (the DOM's side), the background worker (the network's side),
 * the popup and the options page, and the record of one check the popup shows and "Save evidence" writes.
 */
import type { Problem } from '@siegel/core/rules';
import type { State } from './states.js';

/** Content script → background: a page carrying a block was loaded or navigated to (the live `<head>`'s HTML). */
export interface PageMessage {
  type: 'siegel:page';
  url: string;
  head: string;
}

/** Background → content script: the served element, to compare with the live one. */
export interface LiveRequest {
  type: 'siegel:live';
  selector: string;
  /** The served element's `innerHTML` (parsed inert by the content script). */
  served: string;
  /** Absolute URLs of the stylesheets the served page loads from its own origin: the author's. */
  authorSheets: string[];
  /** The text of the `<style>` elements of the served page: the author's. */
  authorStyles: string[];
  /**
   * Whether the served page runs scripts of its own origin (with a site manifest, the ones it pins): then a
   * `hidden` attribute or inline style set after load (tabs, accordions, "show more") counts as the author's.
   */
  scripted: boolean;
}

/** Content script → background: the live findings changed after the check (a late script, a navigation in place). */
export interface LiveUpdate {
  type: 'siegel:live-update';
  url: string;
  findings: LiveFindings;
}

/** One difference of the live element from the served one, for the popup's diff. */
export interface LiveDifference {
  /** `text`, `link`, `form` or `media`. */
  what: string;
  served: string;
  live: string;
}

/** Content script → background: what the reader's tab shows. */
export interface LiveFindings {
  /** `live.*` problems. */
  problems: Problem[];
  /** The text of each part hidden by someone other than its author. */
  hidden: string[];
  differences: LiveDifference[];
}

/** The signer as the popup shows it. */
export interface SignerFacts {
  pubkey: string;
  npub: string;
  nip05?: { name: string; confirmed: boolean };
  /** `pinned`: the reader pinned it; `accepted`: accepted (first seen `since`); `new`: not yet accepted. */
  trust: 'pinned' | 'accepted' | 'new';
  since?: number;
}

/** One check of one tab: what the popup shows, what "Save evidence" records. */
export interface CheckRecord {
  url: string;
  state: State;
  problems: Problem[];
  checkedAt: number;
  signer?: SignerFacts;
  event?: { id: string; created_at: number; url?: string; title?: string; source: string };
  coverage?: string;
  /** The signed content as text (inert). */
  content?: string;
  live?: LiveFindings;
  /** The relays asked and what each answered. */
  relays: Array<{ relay: string; answer: string }>;
}
