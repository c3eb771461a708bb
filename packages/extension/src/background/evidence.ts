/**
 * "Save evidence": one check's facts as an evidence file (`siegel-evidence/1`), built by core's
 * `buildEvidence` (`@siegel/core/evidence`) — the served bytes and response headers (never `Set-Cookie`),
 * the event as judged, every relay answer and site manifest file the check read (its recorder), the
 * expected signer, the signer's NIP-05 and trust, the live findings and the verdict. `siegel verify
 * --evidence FILE` re-checks it offline.
 */
import { buildEvidence, type Evidence } from '@siegel/core/evidence';
import { decideVerdict } from '@siegel/core/rules';
import type { CheckRecord } from '../common/messages.js';
import { STATES } from '../common/states.js';
import type { CheckFacts } from './check-page.js';

/** The evidence file of a check, or `undefined` when nothing was fetched to record. */
export function gatherEvidence(record: CheckRecord, facts: CheckFacts): Evidence | undefined {
  if (!facts.served || !facts.event) return undefined;
  const { signer } = record;
  return buildEvidence({
    page: {
      url: facts.served.url,
      address: facts.served.url,
      status: facts.served.status,
      headers: facts.served.headers,
      bytes: facts.served.bytes,
    },
    event: facts.event,
    ...(facts.expected ? { expected: facts.expected } : {}),
    recorder: facts.recorder,
    ...(signer?.nip05 ? { nip05: { name: signer.nip05.name, confirmed: signer.nip05.confirmed } } : {}),
    ...(signer
      ? {
          signer: {
            pubkey: signer.pubkey,
            trust: signer.trust,
            ...(signer.since !== undefined
              ? { detail: `since ${new Date(signer.since).toISOString()}` }
              : {}),
          },
        }
      : {}),
    judgement: { verdict: decideVerdict(record.problems), problems: record.problems },
    state: STATES[record.state].word,
    recordedAt: new Date(record.checkedAt),
    recordedBy: 'siegel-extension/0.1.0',
  });
}
