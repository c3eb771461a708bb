import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { parseOptions, siegel } from '../src/index.js';

/** A config with what the plugin touches; `versionCheck` accepts, as Eleventy 3 does for `>=3.0.0`. */
function fakeConfig(events: string[] = []) {
  return { versionCheck: () => {}, on: (event: string) => void events.push(event) };
}

describe('@siegel/eleventy', () => {
  it('registers one eleventy.after handler and nothing else', () => {
    const events: string[] = [];
    siegel(fakeConfig(events), { site: 'https://example.com' });
    expect(events).toEqual(['eleventy.after']);
    expect(api.default).toBe(siegel);
    expect(Object.keys(api).sort()).toEqual(
      [
        'DEFAULTS',
        'ELEVENTY_VERSION_RANGE',
        'PLUGIN_NAME',
        'checkEleventyVersion',
        'default',
        'optionsSchema',
        'parseOptions',
        'siegel',
      ].sort(),
    );
  });

  it('rejects typos and bad values, naming them in backticks', () => {
    expect(() => siegel(fakeConfig(), { enable: true } as never)).toThrow(/unknown option `enable`/);
    expect(() => parseOptions({ enabled: 'yes' })).toThrow(/`enabled`/);
    expect(parseOptions({ enabled: true })).toEqual({ enabled: true });
  });
});
