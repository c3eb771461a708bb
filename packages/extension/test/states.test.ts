import { createProblem, type ProblemCode } from '@siegel/core/rules';
import { describe, expect, it } from 'vitest';
import { decideState, describeState, STATES } from '../src/common/states.js';

const problems = (...codes: ProblemCode[]) => codes.map((code) => createProblem(code, `because of ${code}`));

describe('the extension’s states', () => {
  it('adds problems up the rule book’s way first: its own error is INVALID even beside a live one', () => {
    expect(decideState(problems())).toBe('valid');
    expect(decideState(problems('manifest.unchecked'))).toBe('valid');
    expect(decideState(problems('hash.mismatch', 'live.changed'))).toBe('invalid');
    expect(decideState(problems('live.changed'))).toBe('changed');
    expect(decideState(problems('live.hidden_part', 'manifest.missing'))).toBe('changed');
    expect(decideState(problems('event.not_found'))).toBe('unverified');
    expect(decideState(problems('signer.unresolved'))).toBe('unverified');
    expect(decideState(problems('signer.new'))).toBe('new_signer');
    expect(decideState(problems('signer.new', 'live.not_shown'))).toBe('changed');
    expect(decideState(problems('signer.unexpected', 'signer.new'))).toBe('invalid');
  });

  it('starts every title with the state’s word, and names warnings beside VALID', () => {
    for (const state of Object.keys(STATES) as Array<keyof typeof STATES>)
      expect(describeState(state, [])).toMatch(new RegExp(`^${STATES[state].word} `));
    expect(describeState('valid', problems('manifest.unchecked'))).toContain('(manifest.unchecked)');
    expect(describeState('invalid', problems('hash.mismatch', 'address.preview'))).toContain(
      'hash.mismatch, address.preview',
    );
  });
});
