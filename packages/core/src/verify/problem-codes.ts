// The vocabulary of the rule book (rules.ts): the verdicts, the stable problem codes with their severity
// and meaning (documented in docs/verification.md), and how problems add up to a verdict. Separate from the
// judging itself so that whoever only reports problems — a signing run naming why a page was refused, a
// summary, a later verifier — uses the same codes without the judge. Pure, like rules.ts: no Node
// built-ins.
import type { Refusal } from '../page/coverage.js';

/**
 * `valid`: the page is exactly what the key signed, for this address (warnings may stand beside it).
 * `invalid`: something does not match — a tampered, replayed or unverifiable page.
 * `not_found`: the event could not be found (its site copy is missing and no relay had it, or the page or
 * event could not be loaded): an outage, which a reader must be able to tell from tampering.
 */
export type Verdict = 'valid' | 'invalid' | 'not_found';

/** `error` makes a page not valid; `warning` leaves it valid and is shown beside the verdict. */
export type Severity = 'error' | 'warning';

/** What each code means, its severity, and whether it is an outage (`not_found`) rather than a mismatch. */
export const PROBLEM_CODES = {
  'block.missing': { severity: 'error', meaning: 'The page has the signed element but no signature block.' },
  'block.no_event': { severity: 'error', meaning: 'The signature block names no event.' },
  'block.hash': {
    severity: 'error',
    meaning: 'The hash the signature block states is not the hash of the page as it is now.',
  },
  'block.spec': {
    severity: 'error',
    meaning: 'The signature block names another page-hash spec than the event was signed under.',
  },
  'event.not_found': {
    severity: 'error',
    outage: true,
    meaning:
      'The event could not be found: no copy on the site, and no relay asked had it (or none answered).',
  },
  'event.malformed': {
    severity: 'error',
    meaning: 'What was found in place of the event is not a signed Nostr event.',
  },
  'event.not_named': {
    severity: 'error',
    meaning: 'The event is not the one the page’s signature block names.',
  },
  'event.id': {
    severity: 'error',
    meaning: 'The event id does not match the event’s content: the event was altered.',
  },
  'event.signature': {
    severity: 'error',
    meaning: 'The event’s Schnorr signature does not verify for its pubkey.',
  },
  'event.kind': {
    severity: 'error',
    meaning: 'The event is not a page event (a NIP-94 event of kind 1063 with an `x` tag).',
  },
  'event.spec': {
    severity: 'error',
    meaning: 'The event names a page-hash spec this verifier does not know.',
  },
  'event.url': {
    severity: 'error',
    meaning:
      'The event was signed for another address than the one the page was found at (a copy, or a replay): neither its `url` nor a `fallback` (mirror) address.',
  },
  'hash.mismatch': {
    severity: 'error',
    meaning:
      'The page’s signed element changed since it was signed: its hash is not the one the event covers.',
  },
  'signer.unexpected': {
    severity: 'error',
    meaning: 'The event is signed by another key than the one the page’s block names or the reader expects.',
  },
  'page.no_element': { severity: 'error', meaning: 'No element of the page matches the signed selector.' },
  'page.multiple': {
    severity: 'error',
    meaning: 'The selector matches more than one element: a reader could be shown one that was not signed.',
  },
  'page.not_shown': {
    severity: 'error',
    meaning:
      'The signed element may not be shown as signed: it or an ancestor is not a plain container, or carries an attribute, inline declaration or declarative shadow root not on the lists of what cannot hide content.',
  },
  'page.ignored_markup': {
    severity: 'error',
    meaning:
      'Markup inside the signed element that a browser may keep did not become part of it, so the hash would not cover it.',
  },
  'page.encoding': {
    severity: 'error',
    meaning:
      'A browser would not decode the page as UTF-8 (a UTF-16 byte order mark, an HTTP or `<meta>` charset naming another encoding, or none declared for bytes beyond ASCII): what it shows is not what was signed.',
  },
  'page.ambiguous_noscript': {
    severity: 'error',
    meaning:
      'A `<noscript>` makes the page read differently when scripts run (a reader would be shown other markup than was signed); or, under `siegel-page/1`, text in `<noscript>` hashes like markup.',
  },
  'page.title': {
    severity: 'error',
    meaning:
      'The page’s title (`document.title`: the tab, bookmarks, link previews) is not the one it was signed with (the event’s `alt` tag; none: signed without a title).',
  },
  'page.base': {
    severity: 'error',
    meaning:
      'The page’s relative links and forms resolve elsewhere than when it was signed: its base URL (the first `<base href>`) is not the one the event records (`base` tag) or, with none recorded, not the page’s own address.',
  },
  'page.too_large': {
    severity: 'error',
    meaning: 'The page is larger than the verifier reads; it was not checked.',
  },
  'page.unavailable': {
    severity: 'error',
    outage: true,
    meaning: 'The page could not be loaded (network error, HTTP error, time out): nothing was checked.',
  },
  'address.unchecked': {
    severity: 'warning',
    meaning:
      'The page’s address is not known to the verifier (a directory without `--site`), so it was not compared.',
  },
  'address.preview': {
    severity: 'warning',
    meaning:
      'A local preview: the page was found on this machine (a loopback host: 127.0.0.0/8, `::1`, `localhost`) at the path of its signed address or a mirror’s, so only the path was compared.',
  },
  'page.cloaked': {
    severity: 'error',
    meaning:
      'The site serves a browser’s navigation another signed element than a plain client (`siegel verify <url> --check-cloaking`): a verifier could be shown the signed page while readers get another.',
  },
  'page.superseded': {
    severity: 'error',
    meaning:
      'A newer version of the site (its newest manifest, from the verifier’s relays) lists another page event at this path: this is an old version put back or kept.',
  },
  'page.withdrawn': {
    severity: 'error',
    meaning:
      'The newest manifest of the site (from the verifier’s relays) no longer lists this page: the author deleted it.',
  },
  'manifest.unchecked': {
    severity: 'warning',
    meaning:
      'Whether this is the site’s current version was not checked: no relay of the verifier’s answered, only the page’s own relays or the site’s copy of the manifest did, or the page’s event names no manifest (signed before manifests).',
  },
  'manifest.missing': {
    severity: 'warning',
    meaning:
      'Relays of the verifier’s answered, but none holds the site manifest the page’s event names (its publication may not have arrived yet).',
  },
  'asset.unlisted': {
    severity: 'error',
    meaning:
      'The page loads or runs something its signed manifest does not list for it: an inline script or style, or a script, module or stylesheet from any origin.',
  },
  'asset.changed': {
    severity: 'error',
    meaning:
      'A file the signed manifest pins (a script, stylesheet, JS chunk, the verify page or its script) has other bytes than the manifest’s hash.',
  },
  'manifest.bytes_differ': {
    severity: 'warning',
    meaning:
      'The page’s bytes differ from the manifest’s hash, while it names the same event and loads exactly the pinned set (a host or CDN that rewrites HTML).',
  },
  'referrer.other_page': {
    severity: 'warning',
    meaning:
      'The reader came to this verify page from another page than the one it checked: its verdict says nothing about the page they came from.',
  },
  // The browser extension (@siegel/extension): what the reader's browser shows, and whom the reader trusts.
  'live.not_shown': {
    severity: 'error',
    meaning:
      'The browser extension: the signed element is not rendered in the reader’s tab (hidden by a stylesheet or script, or without a box).',
  },
  'live.hidden_part': {
    severity: 'error',
    meaning:
      'The browser extension: part of the signed element is hidden in the reader’s tab by something other than its author (a stylesheet or script the page does not load from its own site, an injected style, another extension).',
  },
  'live.changed': {
    severity: 'error',
    meaning:
      'The browser extension: the signed element in the reader’s tab differs from the served one in what a reader sees or follows (text, links, form targets, media sources): changed by a script or another extension after load.',
  },
  'signer.new': {
    severity: 'warning',
    meaning:
      'The browser extension: the reader has not accepted this key for this site yet (trust on first use): a new author, or a rotated or stolen key.',
  },
  'signer.unresolved': {
    severity: 'error',
    outage: true,
    meaning:
      'The signer the reader pinned by NIP-05 name could not be resolved to a key (its domain did not answer with one): the expected signer is not known, so nothing was compared.',
  },
  // A signed file (judgeFileEvent, file-rules.ts): its NIP-94 event, the record kept beside it, its bytes.
  'file.not_found': {
    severity: 'error',
    outage: true,
    meaning: 'No event for this file was found: nothing with this hash was signed where it was looked for.',
  },
  'file.malformed': {
    severity: 'error',
    meaning: 'What is kept as the file’s event is not a signed Nostr event.',
  },
  'file.event_id': {
    severity: 'error',
    meaning: 'The file’s event id does not match the event’s content: the event was altered.',
  },
  'file.signature': {
    severity: 'error',
    meaning: 'The file’s event’s Schnorr signature does not verify for its pubkey.',
  },
  'file.kind': {
    severity: 'error',
    meaning: 'The file’s event is not a file event (a NIP-94 event of kind 1063 with an `x` tag).',
  },
  'file.hash': {
    severity: 'error',
    meaning: 'The file’s event is for another file: its `x` tag is not the file’s SHA-256 hash.',
  },
  'file.record': {
    severity: 'error',
    meaning:
      'What is kept beside the event (a stored field of the record) is not what the event states: the record was altered.',
  },
  'file.bytes': {
    severity: 'error',
    meaning: 'The file’s bytes do not hash to the signed hash: the file was altered or replaced.',
  },
  'file.unreadable': {
    severity: 'error',
    outage: true,
    meaning: 'The file’s bytes could not be read (missing, or a read error): they were not checked.',
  },
  // An evidence file (`siegel verify --evidence`, evidence-check.ts): what it records was edited.
  'evidence.event': {
    severity: 'error',
    meaning:
      'An event a relay answered, as the evidence file records it, does not verify: relays’ answers are recorded only when they verify, so it was edited.',
  },
  'evidence.manifest': {
    severity: 'error',
    meaning:
      'A site manifest the evidence file records (a relay’s answer, the site’s copy, a blob layout’s path list) does not verify or does not hash to what it names: it was edited.',
  },
  'evidence.disagrees': {
    severity: 'error',
    meaning:
      'The rule-book codes (or the verdict) re-derived offline from the recorded bytes, headers, event(s) and manifest are not the ones the extension recorded: something recorded was edited.',
  },
} as const satisfies Record<string, { severity: Severity; meaning: string; outage?: true }>;

/** A stable problem code: `area.what`, one of {@link PROBLEM_CODES}. */
export type ProblemCode = keyof typeof PROBLEM_CODES;

/** One finding: its stable code, its severity (from {@link PROBLEM_CODES}) and a sentence with the details. */
export interface Problem {
  code: ProblemCode;
  severity: Severity;
  message: string;
}

/** A problem with the code's severity. */
export function createProblem(code: ProblemCode, message: string): Problem {
  return { code, severity: PROBLEM_CODES[code].severity, message };
}

/** The verdict `problems` add up to: any non-outage error → `invalid`; else any error → `not_found`; else `valid`. */
export function decideVerdict(problems: readonly Problem[]): Verdict {
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.some((problem) => !('outage' in PROBLEM_CODES[problem.code]))) return 'invalid';
  return errors.length > 0 ? 'not_found' : 'valid';
}

/** The problem code of a coverage refusal: a signing run reports a refused page with the code a verifier gives it. */
export function refusalProblemCode(refusal: Refusal): ProblemCode {
  switch (refusal.code) {
    case 'multiple':
      return 'page.multiple';
    case 'hidden':
      return 'page.not_shown';
    case 'ignored-markup':
      return 'page.ignored_markup';
    case 'ambiguous-noscript':
      return 'page.ambiguous_noscript';
    case 'encoding':
      return 'page.encoding';
  }
}
