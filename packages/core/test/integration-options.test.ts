import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  INTEGRATION_DEFAULTS,
  type IntegrationOptions,
  integrationOptionsSchema,
  parseIntegrationOptions,
  toSignSiteOptions,
} from '../src/integration/integration.js';
import { resolveSignSiteOptions } from '../src/options/options.js';

let roots: string[] = [];
afterEach(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
  roots = [];
});

const quietLogger = { info: () => {}, warn: () => {}, error: () => {} };
const BUNKER_OPTIONS = { bunkerUrl: 'http://127.0.0.1:7777', bunkerApiToken: 't', bunkerKeyName: 'blog' };

describe('parseIntegrationOptions', () => {
  it('accepts every shared option and treats undefined as {}', () => {
    const options = { ...INTEGRATION_DEFAULTS, site: 'https://example.com', ...BUNKER_OPTIONS };
    expect(parseIntegrationOptions(integrationOptionsSchema, options, '@siegel/x')).toEqual(options);
    expect(parseIntegrationOptions(integrationOptionsSchema, undefined, '@siegel/x')).toEqual({});
  });

  it('rejects typos and bad values, prefixed with the integration name, bad keys in backticks', () => {
    expect(() => parseIntegrationOptions(integrationOptionsSchema, { dryrun: true }, '@siegel/x')).toThrow(
      /^@siegel\/x: unknown option `dryrun`$/,
    );
    expect(() =>
      parseIntegrationOptions(integrationOptionsSchema, { onError: 'ignore', site: 'x' }, '@siegel/x'),
    ).toThrow(/^@siegel\/x: option `(site|onError)`: .+; option `(site|onError)`: /);
    try {
      parseIntegrationOptions(integrationOptionsSchema, { selector: '' }, '@siegel/x');
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_options' });
    }
  });

  it('stays strict when an integration extends the schema with its own option', () => {
    const extended = integrationOptionsSchema.extend({ enabled: z.boolean().optional() });
    expect(parseIntegrationOptions(extended, { enabled: true, verbose: true }, '@siegel/x')).toEqual({
      enabled: true,
      verbose: true,
    });
    expect(() => parseIntegrationOptions(extended, { enable: true }, '@siegel/x')).toThrow(
      /unknown option `enable`/,
    );
    expect(() => parseIntegrationOptions(integrationOptionsSchema, { enabled: true }, '@siegel/x')).toThrow(
      /unknown option `enabled`/,
    );
  });
});

describe('toSignSiteOptions', () => {
  it('applies the defaults, resolves the cache against the root and reads the root’s .env', async () => {
    const root = await mkdtemp(join(tmpdir(), 'siegel-integration-options-'));
    roots.push(root);
    await writeFile(join(root, '.env'), 'BUNKER_KEY_NAME=from-dotenv\n');
    const options = toSignSiteOptions({ site: 'https://example.com' }, { root, logger: quietLogger });
    expect(options).toMatchObject({
      site: 'https://example.com',
      selector: INTEGRATION_DEFAULTS.selector,
      dryRun: false,
      verbose: false,
      cacheFile: join(root, '.sign-cache.json'),
      bunkerUrl: undefined,
      bunkerApiToken: undefined,
      bunkerKeyName: undefined,
    });
    expect(options.env?.BUNKER_KEY_NAME).toBe('from-dotenv');
  });

  it('passes given options through and keeps an absolute cache path', () => {
    const given = {
      selector: 'article',
      dryRun: true,
      verbose: true,
      cacheFile: '/var/cache/sign.json',
      publishTimeoutMs: 1500,
      ...BUNKER_OPTIONS,
    };
    const options = toSignSiteOptions(given, { root: '/nonexistent-siegel-root', logger: quietLogger });
    expect(options).toMatchObject(given);
  });

  it('builds inherit the publishing budget: 5 s by default, `publishTimeoutMs` or SIEGEL_PUBLISH_TIMEOUT_MS from the root’s .env (issue 24)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'siegel-integration-budget-'));
    roots.push(root);
    const resolve = (options: IntegrationOptions) =>
      resolveSignSiteOptions(
        toSignSiteOptions({ site: 'https://example.com', ...options }, { root, logger: quietLogger }),
      ).publishTimeoutMs;
    expect(resolve({})).toBe(5_000);
    expect(resolve({ publishTimeoutMs: 800 })).toBe(800);
    await writeFile(join(root, '.env'), 'SIEGEL_PUBLISH_TIMEOUT_MS=2500\n');
    expect(resolve({})).toBe(2_500);
    expect(() =>
      parseIntegrationOptions(integrationOptionsSchema, { publishTimeoutMs: -1 }, '@siegel/x'),
    ).toThrow(/option `publishTimeoutMs`: must be a whole number ≥ 0, got `-1`/);
  });

  it('calls the host logger’s methods as methods (a class instance like Astro’s logger works)', () => {
    class HostLogger {
      lines: string[] = [];
      info(message: string) {
        this.lines.push(`info ${message}`);
      }
      warn(message: string) {
        this.lines.push(`warn ${message}`);
      }
      error(message: string) {
        this.lines.push(`error ${message}`);
      }
    }
    const host = new HostLogger();
    const { logger } = toSignSiteOptions({}, { root: '/nonexistent-siegel-root', logger: host });
    logger?.info('a');
    logger?.warn('b');
    logger?.error?.('c');
    expect(host.lines).toEqual(['info a', 'warn b', 'error c']);
  });
});
