// Evidence files (`siegel-evidence/1`, docs/verification.md): what a verifier in a reader's browser (the
// extension, packages/extension) saw when it judged a page — the served bytes and headers, the event, every
// relay answer and site file its manifest gathering read, the NIP-05 answer, what it found live and its
// verdict — in one JSON file that `siegel verify --evidence` re-checks offline (evidence-check.ts). This file
// writes it: `createEvidenceRecorder` wraps the verifier's I/O (relay queries, the manifest gathering) and
// keeps what it read; `buildEvidence` puts it together with the page and the verdict. Pure and
// browser-safe (no Node built-ins): `@siegel/core/evidence`, bundled by the extension. The format and its
// reader are in evidence-format.ts, the checker in evidence-check.ts; both are re-exported here.
import { toBase64 } from '@exodus/bytes/base64.js';
import type { NostrEvent } from 'nostr-tools/core';
import { isEventShape } from '../nostr/event-shape.js';
import type { RelayAnswer } from '../nostr/relay-query-portable.js';
import {
  EVIDENCE_FORMAT,
  type Evidence,
  type EvidenceManifestRecord,
  type EvidenceRelayAnswer,
  isObservedOnly,
} from './evidence-format.js';
import {
  createManifestEvidence,
  type ManifestEvidenceIo,
  type ManifestGatherCall,
  type ManifestGathering,
} from './manifest-evidence.js';
import type { EventEvidence, Problem, Verdict } from './rules.js';

export { checkEvidence, type EvidenceCheck } from './evidence-check.js';
export {
  EVIDENCE_FORMAT,
  EVIDENCE_LIMITS,
  type Evidence,
  type EvidenceManifestRecord,
  type EvidenceRelayAnswer,
  isObservedOnly,
  readEvidence,
} from './evidence-format.js';

/** A relay query as the manifest gathering and the extension's event lookup make it (never throws). */
export type RelayAsk = (
  relay: string,
  filter: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<RelayAnswer>;

/**
 * The manifest gathering's call: the page's event, its relay hints, its address and bytes (or their promise:
 * the relays are asked before the page has been fetched); and `lookAhead`, recorded like the rest.
 */
export type ManifestGather = ManifestGathering;

/** What a verifier's I/O read for one page, for {@link buildEvidence}. */
export interface EvidenceRecorder {
  /** `ask`, recording each answer under `purpose` (`event`, `profile`, …). */
  recordAsk(ask: RelayAsk, purpose: string): RelayAsk;
  /** Record one relay answer the verifier got some other way. */
  addAnswer(purpose: string, filter: Record<string, unknown>, answer: RelayAnswer): void;
  /**
   * The site manifest gathering (`createManifestEvidence(io)`, the one every verifier runs) with every
   * relay answer, site file and blob it reads recorded: a manifest file's bytes, any other file's hash only.
   */
  gatherManifest(io: ManifestEvidenceIo): ManifestGather;
  /** The relay answers recorded so far. */
  readonly relays: EvidenceRelayAnswer[];
  /** The manifest gathering recorded (after `gatherManifest`'s function was called). */
  readonly manifest: EvidenceManifestRecord | undefined;
}

/** A manifest file the gathering reads: the site's copy of the manifest and a blob layout's path list. */
const MANIFEST_FILE = /^\/verify\/manifest(?:-([0-9a-f]{64}))?\.json$/;

/** The purpose a manifest gathering's query is for, from its filter. */
function manifestPurpose(filter: Record<string, unknown>): string {
  const kinds = filter.kinds;
  return Array.isArray(kinds) && kinds.includes(10002) ? 'relay-list' : 'manifest';
}

/**
 * A recorder of what a verifier reads for one page (one recorder per check).
 *
 * @example
 * ```ts
 * const recorder = createEvidenceRecorder();
 * const gather = recorder.gatherManifest({ relays, hintAllowed, ask, valid, readSiteFile, sha256, chunks: true });
 * const manifest = await gather(event, block.relays ?? [], tabUrl, bytes);
 * // … judgePage, live checks …
 * const evidence = buildEvidence({ page, event: { found: event }, recorder, judgement });
 * ```
 */
export function createEvidenceRecorder(): EvidenceRecorder {
  const relays: EvidenceRelayAnswer[] = [];
  let manifest: EvidenceManifestRecord | undefined;
  const addAnswer = (purpose: string, filter: Record<string, unknown>, answer: RelayAnswer) => {
    relays.push({
      purpose,
      relay: answer.relay,
      filter: structuredClone(filter),
      events: answer.events.map(copyEvent),
      ...(answer.error !== undefined ? { error: answer.error } : {}),
      rejected: answer.rejected,
    });
  };
  const recordAsk =
    (ask: RelayAsk, purpose: string | ((filter: Record<string, unknown>) => string)): RelayAsk =>
    async (relay, filter, signal) => {
      const answer = await ask(relay, filter, signal);
      addAnswer(typeof purpose === 'string' ? purpose : purpose(filter), filter, answer);
      return answer;
    };
  return {
    recordAsk,
    addAnswer,
    get relays() {
      return relays;
    },
    get manifest() {
      return manifest;
    },
    gatherManifest(io) {
      const record: EvidenceManifestRecord = {
        relays: [...io.relays],
        hints: [],
        allowedRelays: [],
        page: '',
        chunks: io.chunks,
        alsoCheck: [],
        files: [],
        blobs: [],
      };
      const valid = (event: NostrEvent) => {
        try {
          return io.valid(event);
        } catch {
          return false;
        }
      };
      const recorded: ManifestEvidenceIo = {
        ...io,
        ask: recordAsk(io.ask, manifestPurpose),
        hintAllowed: (relay) => {
          const allowed = io.hintAllowed(relay);
          if (allowed && !record.allowedRelays.includes(relay)) record.allowedRelays.push(relay);
          return allowed;
        },
        async readSiteFile(path, page, siteUrl) {
          try {
            const bytes = await io.readSiteFile(path, page, siteUrl);
            const manifestFile = MANIFEST_FILE.exec(path);
            if (!manifestFile) record.files.push({ path, sha256: await io.sha256(bytes) });
            else if (isGoodManifestFile(bytes, manifestFile[1], valid, await io.sha256(bytes)))
              record.files.push({ path, body: toBase64(bytes) });
            // A copy that is not what its name says is recorded as what the gathering made of it: nothing.
            else
              record.files.push({ path, error: 'not a signed manifest, or not the bytes its name hashes' });
            return bytes;
          } catch (error) {
            record.files.push({ path, error: (error as Error).message });
            throw error;
          }
        },
        ...(io.alsoCheck
          ? {
              alsoCheck: (eventId: string) => {
                const paths = io.alsoCheck?.(eventId) ?? [];
                record.alsoCheck.push(...paths);
                return paths;
              },
            }
          : {}),
        ...(io.readBlob
          ? {
              async readBlob(server: string, sha256: string, bytes: number) {
                try {
                  const body = (await io.readBlob?.(server, sha256, bytes)) ?? new Uint8Array();
                  record.blobs.push(
                    (await io.sha256(body)) === sha256
                      ? { server, sha256, body: toBase64(body) }
                      : { server, sha256, error: 'not the bytes of its hash' },
                  );
                  return body;
                } catch (error) {
                  record.blobs.push({ server, sha256, error: (error as Error).message });
                  throw error;
                }
              },
            }
          : {}),
      };
      const gather = createManifestEvidence(recorded);
      const call: ManifestGatherCall = (event, hints, page, bytes, siteGuess, known) => {
        record.hints = [...hints];
        record.page = page;
        if (siteGuess !== undefined) record.siteGuess = siteGuess;
        manifest = record;
        return gather(event, hints, page, bytes, siteGuess, known);
      };
      return Object.assign(call, { lookAhead: gather.lookAhead });
    },
  };
}

/** A site's manifest file is kept when it is what it claims: a signed event, or the bytes its name hashes. */
function isGoodManifestFile(
  bytes: Uint8Array,
  blobHash: string | undefined,
  valid: (event: NostrEvent) => boolean,
  sha256: string,
): boolean {
  if (blobHash !== undefined) return sha256 === blobHash;
  try {
    const event = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return isEventShape(event) && valid(event);
  } catch {
    return false;
  }
}

/** An event's NIP-01 fields only (a relay client may hang its own marks on the object). */
function copyEvent({ id, pubkey, created_at, kind, tags, content, sig }: NostrEvent): NostrEvent {
  return { id, pubkey, created_at, kind, tags, content, sig };
}

/** The page as the verifier fetched it. */
export interface EvidencePage {
  /** The URL the bytes came from (after redirects: `Response.url`). */
  url: string;
  /** The address judged (the tab's); default `url`. */
  address?: string;
  status: number;
  /** The response headers (`Response.headers` or an object); `set-cookie` is never kept. */
  headers: Iterable<[string, string]> | Record<string, string>;
  bytes: Uint8Array;
}

/** Everything {@link buildEvidence} puts in the file. */
export interface EvidenceInput {
  page: EvidencePage;
  /** The signed selector; default `main`. */
  selector?: string;
  /** The event as judged (`judgePage`'s `event`). */
  event: EventEvidence;
  /** The expected signer given to `judgePage`, if any. */
  expected?: { pubkey?: string; nip05?: string };
  /** What the verifier's relay queries and manifest gathering read. */
  recorder?: EvidenceRecorder;
  nip05?: Evidence['nip05'];
  signer?: Evidence['signer'];
  /** Every problem the verifier gave (the rule book's, `live.*`, `signer.new`) and its verdict. */
  judgement: { verdict: Verdict; problems: Problem[] | Evidence['verdict']['problems'] };
  /** The verifier's state word (`VALID`, `CHANGED`, `NEW SIGNER`, …). */
  state?: string;
  recordedAt?: Date;
  recordedBy?: string;
}

/** Response headers never written into evidence: they carry the reader's session. */
const PRIVATE_HEADERS = new Set(['set-cookie', 'set-cookie2']);

/**
 * The evidence file of one check, ready for `JSON.stringify`. The live findings are the problems only a
 * reader's browser can see (`live.*`, `signer.new`): {@link isObservedOnly}.
 *
 * @example
 * ```ts
 * const evidence = buildEvidence({
 *   page: { url: response.url, address: tab.url, status: response.status, headers: response.headers, bytes },
 *   event: { found: event, from: 'wss://relay.example' },
 *   recorder,
 *   judgement: { verdict: 'valid', problems: [] },
 * });
 * const file = new Blob([JSON.stringify(evidence, null, 2)], { type: 'application/json' });
 * ```
 */
export function buildEvidence(input: EvidenceInput): Evidence {
  const headers: Record<string, string> = {};
  const entries =
    Symbol.iterator in input.page.headers ? input.page.headers : Object.entries(input.page.headers);
  for (const [name, value] of entries as Iterable<[string, string]>) {
    const lower = name.toLowerCase();
    if (!PRIVATE_HEADERS.has(lower))
      headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
  }
  const problems = input.judgement.problems.map(({ code, severity, message }) => ({
    code,
    severity,
    message,
  }));
  const evidence: Evidence = {
    format: EVIDENCE_FORMAT,
    recordedAt: (input.recordedAt ?? new Date()).toISOString(),
    ...(input.recordedBy !== undefined ? { recordedBy: input.recordedBy } : {}),
    selector: input.selector ?? 'main',
    page: {
      url: input.page.url,
      address: input.page.address ?? input.page.url,
      status: input.page.status,
      headers,
      body: toBase64(input.page.bytes),
    },
    event:
      'found' in input.event
        ? { ...input.event, found: structuredClone(input.event.found) }
        : { ...input.event },
    ...(input.expected ? { expected: { ...input.expected } } : {}),
    relays: [...(input.recorder?.relays ?? [])],
    ...(input.recorder?.manifest ? { manifest: input.recorder.manifest } : {}),
    ...(input.nip05 ? { nip05: input.nip05 } : {}),
    ...(input.signer ? { signer: input.signer } : {}),
    live: problems.filter((problem) => isObservedOnly(problem.code)),
    verdict: { verdict: input.judgement.verdict, ...(input.state ? { state: input.state } : {}), problems },
  };
  return evidence;
}
