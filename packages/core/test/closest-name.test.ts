import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from '../src/text/closest-name.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and one adjacent swap as one edit each', () => {
    expect(editDistance('site', 'site')).toBe(0);
    expect(editDistance('sitee', 'site')).toBe(1);
    expect(editDistance('sit', 'site')).toBe(1);
    expect(editDistance('sute', 'site')).toBe(1);
    expect(editDistance('stie', 'site')).toBe(1);
    expect(editDistance('dryrun', 'dry-run')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('closestName', () => {
  const options = ['site', 'selector', 'cache', 'relay', 'dry-run', 'verbose', 'pubkey', 'help'];
  it('names the likely meant option of a typo', () => {
    expect(closestName('sitee', options)).toBe('site');
    expect(closestName('pubky', options)).toBe('pubkey');
    expect(closestName('dryrun', options)).toBe('dry-run');
    expect(closestName('Verbose', options)).toBe('verbose');
    expect(closestName('selecter', options)).toBe('selector');
  });
  it('names none when nothing is near enough to be a typo', () => {
    expect(closestName('frobnicate', options)).toBeUndefined();
    expect(closestName('x', options)).toBeUndefined();
    expect(closestName('all', options)).toBeUndefined();
  });
});
