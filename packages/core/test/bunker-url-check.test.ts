import { afterEach, describe, expect, it } from 'vitest';
import { SiegelError } from '../src/errors.js';
import { isLoopbackHost } from '../src/net/address-policy.js';
import { signSite } from '../src/pipeline/sign-site.js';
import { describeCleartextBunker } from '../src/signer/cleartext-bunker.js';
import { collectingLogger, createFixtureProject } from './support/site-fixture.js';
import { startTinyBunker, type TinyBunker } from './support/tiny-bunker.js';

describe('cleartext BUNKER_URL warning', () => {
  it('flags plain http:// to a host that is not loopback, and only that', () => {
    for (const url of ['http://bunker.example:7777', 'http://10.0.0.5:7777', 'http://[2001:db8::1]:7777']) {
      expect(describeCleartextBunker(url), url).toMatch(
        /^BUNKER_URL `.*` is plain http:\/\/ to a host that is not this machine: BUNKER_API_TOKEN travels in cleartext/,
      );
    }
    for (const url of [
      'https://bunker.example',
      'http://localhost:7777',
      'http://LOCALHOST.:7777',
      'http://bunker.localhost:7777',
      'http://127.0.0.1:7777',
      'http://127.8.9.10',
      'http://[::1]:7777',
      'http://[::ffff:127.0.0.1]:7777',
    ]) {
      expect(describeCleartextBunker(url), url).toBeUndefined();
    }
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('localhost.example.com')).toBe(false);
  });
});

describe('signSite warns once about a cleartext bunker', () => {
  let bunker: TinyBunker | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await bunker?.close();
    await cleanup?.();
  });

  it('warns before the token is sent to a non-loopback http:// bunker, once per URL', async () => {
    const project = await createFixtureProject();
    cleanup = project.cleanup;
    const url = 'http://bunker.invalid:7777'; // never resolves: the run fails after the warning
    const run = async () => {
      const { logger, warn } = collectingLogger();
      const error = await signSite(project.dist, {
        site: 'https://example.com',
        cacheFile: project.cacheFile,
        logger,
        progress: false,
        env: { BUNKER_URL: url, BUNKER_API_TOKEN: 't' },
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SiegelError);
      expect((error as SiegelError).code).toBe('bunker_unreachable');
      return warn.filter((line) => line.includes('cleartext'));
    };
    expect(await run()).toEqual([
      `BUNKER_URL \`${url}\` is plain http:// to a host that is not this machine: BUNKER_API_TOKEN travels in cleartext. Use https:// (or a tunnel to localhost).`,
    ]);
    expect(await run()).toEqual([]);
  });

  it('says nothing for a bunker on loopback', async () => {
    bunker = await startTinyBunker();
    const project = await createFixtureProject();
    cleanup = project.cleanup;
    const { logger, warn } = collectingLogger();
    const summary = await signSite(project.dist, {
      site: 'https://example.com',
      cacheFile: project.cacheFile,
      logger,
      progress: false,
      env: { BUNKER_URL: bunker.url, BUNKER_API_TOKEN: bunker.token },
    });
    expect(summary.signed).toBe(4);
    expect(warn).toEqual([]);
  });
});
