/**
 * The extension's states, in one table (Meta Code Verify's model): each with the word that starts the
 * action's title (so tests and people using assistive tech can read it: `chrome.action.getTitle`), its
 * badge and its icon colour. How a check's problems become a state is {@link decideState}.
 */
import type { Problem } from '@siegel/core/rules';
import { decideVerdict } from '@siegel/core/rules';

/** A tab's state. */
export type State = 'valid' | 'invalid' | 'changed' | 'new_signer' | 'unverified' | 'checking';

/** Word, badge and colour of each state. */
export const STATES: Record<State, { word: string; badge: string; colour: string; meaning: string }> = {
  valid: {
    word: 'VALID',
    badge: '✓',
    colour: '#1a7f37',
    meaning: 'the signed content is exactly what its key signed for this address, and shown as served',
  },
  invalid: {
    word: 'INVALID',
    badge: '✗',
    colour: '#cf222e',
    meaning: 'the page does not match its signature',
  },
  changed: {
    word: 'CHANGED',
    badge: '!',
    colour: '#bc4c00',
    meaning: 'the signed content is not shown to you as it was served',
  },
  new_signer: {
    word: 'NEW SIGNER',
    badge: '?',
    colour: '#9a6700',
    meaning: 'valid, but signed by a key you have not accepted for this site',
  },
  unverified: {
    word: 'UNVERIFIED',
    badge: '…',
    colour: '#57606a',
    meaning: 'the signature could not be checked (an outage, not tampering)',
  },
  checking: { word: 'CHECKING', badge: '', colour: '#8c959f', meaning: 'checking the signature' },
};

/**
 * The state problems add up to. The rule book first: an error of its own (not an outage) → INVALID, so a
 * page the served bytes already condemn never reads as merely changed; then any `live.*` error → CHANGED;
 * then an outage → UNVERIFIED; a valid page with `signer.new` → NEW SIGNER; else VALID.
 */
export function decideState(problems: readonly Problem[]): State {
  const live = (problem: Problem) => problem.code.startsWith('live.');
  if (decideVerdict(problems.filter((problem) => !live(problem))) === 'invalid') return 'invalid';
  if (problems.some((problem) => live(problem) && problem.severity === 'error')) return 'changed';
  if (decideVerdict(problems) === 'not_found') return 'unverified';
  return problems.some((problem) => problem.code === 'signer.new') ? 'new_signer' : 'valid';
}

/** The action's title: the state's word first, then what it means and the warnings beside it. */
export function describeState(state: State, problems: readonly Problem[]): string {
  const { word, meaning } = STATES[state];
  const shown = problems.filter((problem) => state !== 'valid' || problem.severity === 'warning');
  const codes = shown.map((problem) => problem.code);
  return `${word} — Siegel: ${meaning}${codes.length > 0 ? ` (${codes.join(', ')})` : ''}`;
}
