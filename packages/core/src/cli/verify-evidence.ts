// `siegel verify --evidence FILE [--json]`: an evidence file the browser extension saved, re-checked offline
// (verify/evidence-check.ts) and reported — the rule book's codes re-derived, the extension's verdict
// compared, and what it observed then (live findings, relay and NIP-05 answers) shown as not re-checkable.
import { readFile, stat } from 'node:fs/promises';
import { SiegelError } from '../errors.js';
import { formatByteSize } from '../text/byte-size.js';
import { checkEvidence, type EvidenceCheck } from '../verify/evidence-check.js';
import { EVIDENCE_LIMITS, type Evidence, readEvidence } from '../verify/evidence-format.js';

/**
 * Read, re-check and report `file`; returns whether the evidence holds and the page was valid.
 * @throws {SiegelError} `invalid_options` when the file is not evidence (not JSON, another format, too big)
 * or cannot be read.
 */
export async function verifyEvidenceFile(
  file: string,
  options: { json: boolean; verbose: boolean },
  print: (text: string) => void,
): Promise<boolean> {
  let bytes: Uint8Array;
  try {
    // The size first: a file larger than any evidence is not read into memory.
    if ((await stat(file)).size > EVIDENCE_LIMITS.maxBytes)
      throw new SiegelError(
        'invalid_options',
        `\`${file}\` is larger than ${formatByteSize(EVIDENCE_LIMITS.maxBytes)}, the most \`--evidence\` reads`,
      );
    bytes = await readFile(file);
  } catch (error) {
    if (error instanceof SiegelError) throw error;
    throw new SiegelError(
      'invalid_options',
      `\`--evidence\`: cannot read \`${file}\`: ${(error as Error).message}`,
    );
  }
  let evidence: Evidence;
  try {
    evidence = readEvidence(bytes);
  } catch (error) {
    throw new SiegelError('invalid_options', `\`${file}\`: ${(error as Error).message}`);
  }
  const check = await checkEvidence(evidence);
  print(
    options.json
      ? formatEvidenceJson(file, evidence, check)
      : formatEvidence(evidence, check, options.verbose),
  );
  return check.ok && check.verdict === 'valid';
}

const line = (problem: { code: string; severity: string; message: string }) =>
  `  ${problem.severity} ${problem.code}: ${problem.message}`;

/** Which relays answered what: one line per answer. */
function describeRelays(evidence: Evidence): string[] {
  return evidence.relays.map((answer) => {
    const events = answer.events.length === 1 ? '1 event' : `${answer.events.length} events`;
    return `  ${answer.relay} (${answer.purpose}): ${answer.error === undefined ? events : `${events}, ${answer.error}`}`;
  });
}

/** The report for people. */
function formatEvidence(evidence: Evidence, check: EvidenceCheck, verbose: boolean): string {
  const bytes = Buffer.from(evidence.page.body, 'base64').byteLength;
  const { recorded, rederived } = check;
  const lines = [
    `Evidence ${evidence.format}, recorded ${evidence.recordedAt}${evidence.recordedBy ? ` by ${evidence.recordedBy}` : ''}`,
    `Page: ${evidence.page.address} (HTTP ${evidence.page.status}, ${formatByteSize(bytes)}${evidence.page.url === evidence.page.address ? '' : `, fetched from ${evidence.page.url}`})`,
    `Re-derived offline from the recorded bytes, event and manifest: ${rederived.verdict}`,
    ...rederived.problems.map(line),
    `The extension recorded: ${recorded.verdict}${recorded.state ? ` (${recorded.state})` : ''}`,
    ...(verbose ? recorded.problems.map(line) : []),
    'Observed by the extension then, not re-checkable:',
    ...(check.observed.length === 0 ? ['  live findings: none'] : check.observed.map(line)),
    ...(evidence.relays.length === 0 ? ['  relays: none asked'] : describeRelays(evidence)),
    ...(evidence.nip05
      ? [
          `  NIP-05 ${evidence.nip05.name}: ${evidence.nip05.confirmed ? 'confirmed' : 'not confirmed'}${evidence.nip05.pubkey ? ` for ${evidence.nip05.pubkey}` : ''}${evidence.nip05.detail ? ` (${evidence.nip05.detail})` : ''}`,
        ]
      : []),
    ...(evidence.signer ? [`  signer ${evidence.signer.pubkey}: ${evidence.signer.trust}`] : []),
  ];
  if (check.ok)
    lines.push(
      `The evidence holds: the extension's rule-book codes and verdict are what the recorded bytes, event and manifest give. The page: ${check.verdict}.`,
    );
  else lines.push('The evidence does not hold: what it records was edited.', ...check.problems.map(line));
  return lines.join('\n');
}

/** The report as JSON: the check, and what was observed then. */
function formatEvidenceJson(file: string, evidence: Evidence, check: EvidenceCheck): string {
  return JSON.stringify(
    {
      file,
      format: evidence.format,
      recordedAt: evidence.recordedAt,
      page: evidence.page.address,
      ok: check.ok,
      verdict: check.verdict,
      problems: check.problems,
      rederived: { verdict: check.rederived.verdict, problems: check.rederived.problems },
      recorded: check.recorded,
      observed: {
        live: check.observed,
        relays: evidence.relays.map(({ purpose, relay, events, error }) => ({
          purpose,
          relay,
          events: events.length,
          ...(error !== undefined ? { error } : {}),
        })),
        ...(evidence.nip05 ? { nip05: evidence.nip05 } : {}),
        ...(evidence.signer ? { signer: evidence.signer } : {}),
      },
    },
    null,
    2,
  );
}
