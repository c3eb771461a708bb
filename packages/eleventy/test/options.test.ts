import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { parseOptions, siegel } from '../src/index.js';

describe('@siegel/eleventy', () => {
  it('registers one transform and the before/after events', () => {
    const transforms: string[] = [];
    const events: string[] = [];
    siegel(
      { addTransform: (name) => transforms.push(name), on: (event) => events.push(event) },
      { site: 'https://example.com' },
    );
    expect(transforms).toEqual(['@siegel/eleventy']);
    expect(events.sort()).toEqual(['eleventy.after', 'eleventy.before']);
    expect(api.default).toBe(siegel);
  });

  it('rejects typos and bad values, naming them in backticks', () => {
    const config = { addTransform: () => {}, on: () => {} };
    expect(() => siegel(config, { enable: true } as never)).toThrow(/unknown option `enable`/);
    expect(() => parseOptions({ enabled: 'yes' })).toThrow(/`enabled`/);
    expect(parseOptions({ enabled: true })).toEqual({ enabled: true });
  });
});
