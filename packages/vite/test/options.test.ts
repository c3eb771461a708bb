import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { parseOptions, siegel } from '../src/index.js';

describe('@siegel/vite', () => {
  it('is a build-only plugin named after its npm package', () => {
    const plugin = siegel({ site: 'https://example.com' });
    expect(plugin.name).toBe('@siegel/vite');
    expect(plugin.apply).toBe('build');
    expect(api.default).toBe(siegel);
    expect(Object.keys(api).sort()).toEqual(
      ['DEFAULTS', 'PLUGIN_NAME', 'default', 'optionsSchema', 'parseOptions', 'siegel'].sort(),
    );
  });

  it('rejects typos and bad values, naming them in backticks', () => {
    expect(() => siegel({ outdir: 'x' } as never)).toThrow(/unknown option `outdir`/);
    expect(() => parseOptions({ onError: 'never' })).toThrow(/`onError`/);
    expect(parseOptions({ onError: 'warn', cacheFile: 'c.json' })).toEqual({
      onError: 'warn',
      cacheFile: 'c.json',
    });
  });
});
