import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as auth from '../src/auth/tokens.js';
import * as fs from '../src/fs/atomic-write.js';
import * as core from '../src/index.js';
import * as integration from '../src/integration/integration.js';
import * as crypto from '../src/nostr/crypto.js';
import * as relay from '../src/nostr/relay.js';
import * as text from '../src/text/terminal-text.js';
import * as browser from '../src/verify/browser.js';
import * as evidence from '../src/verify/evidence.js';
import * as rules from '../src/verify/rules.js';

describe('@siegel/core exports', () => {
  it('pins the exported names of the user API (a change here is an API change)', () => {
    expect(Object.keys(core).sort()).toEqual([
      'BLOCK_END_MARKER',
      'BLOCK_START_MARKER',
      'DEFAULTS',
      'DEFAULT_SELECTOR',
      'EXTENSION_README_URL',
      'GERMAN_MESSAGES',
      'HttpBunkerSigner',
      'LocalKeySigner',
      'NSITE_NAMED_KIND',
      'NSITE_ROOT_KIND',
      'Nip46Signer',
      'PAGE_EVENT_KIND',
      'PROBLEM_CODES',
      'PUBLIC_ADDRESSES_ONLY',
      'PUBLISH_DEFAULTS',
      'PublishSession',
      'RelayPublisher',
      'SIGNED_CONTENT_FRAME_HEAD',
      'SiegelError',
      'VERIFY_SCRIPT_NAME',
      'analyzePage',
      'applySignatureBlock',
      'backoffDelay',
      'checkPageAtUrl',
      'checkSignedEvent',
      'createGermanError',
      'createPageEvent',
      'createProblem',
      'createSigner',
      'decideVerdict',
      'describeCoverage',
      'formatPublishReport',
      'formatSummary',
      'formatVerifyReport',
      'formatVerifyReportJson',
      'hashContent',
      'hashPage',
      'isSameAddress',
      'isSiegelError',
      'judgeFileEvent',
      'judgePage',
      'loadEnv',
      'normalizeAddress',
      'outboxFileOf',
      'pageUrl',
      'parseBunkerUri',
      'parseRelays',
      'publishSite',
      'readOutbox',
      'readPageContent',
      'readRelaysFromEnv',
      'readSignatureBlock',
      'readSignerConfig',
      'readVerifyScript',
      'renderSignatureBlock',
      'renderVerifyPage',
      'retryDelayMs',
      'signSite',
      'signSiteOptionsSchema',
      'toTerminalSafe',
      'verifyByUrlLink',
      'verifySite',
    ]);
  });

  it('pins the names of the subpaths other Siegel packages import', () => {
    expect(Object.keys(integration).sort()).toEqual([
      'INTEGRATION_DEFAULTS',
      'defineIntegrationOptions',
      'handleSigningError',
      'integrationOptionsSchema',
      'parseIntegrationOptions',
      'runBuildSigning',
      'toSignSiteOptions',
    ]);
    expect(Object.keys(crypto).sort()).toEqual([
      'HEX64',
      'computeEventId',
      'isEventShape',
      'jsEngine',
      'loadSigningEngine',
    ]);
    expect(Object.keys(fs).sort()).toEqual([
      'isStaleTempName',
      'mkdirFast',
      'moveAside',
      'writeFileAtomic',
      'writeFileAtomicSync',
      'writeFileDurable',
      'writeFileFast',
    ]);
    expect(Object.keys(auth).sort()).toEqual(['findToken', 'tokensEqual']);
    expect(Object.keys(relay).sort()).toEqual([
      'MAX_NIP46_MESSAGE_BYTES',
      'MAX_RELAY_MESSAGE_BYTES',
      'RELAY_LIMITS',
      'RelayConnection',
      'backoffDelay',
      'createNodeRelay',
      'describeTooLarge',
      'parseRelays',
    ]);
    expect(Object.keys(text).sort()).toEqual(['toTerminalSafe']);
    expect(Object.keys(browser).sort()).toEqual([
      'DEFAULT_RELAYS',
      'MAX_RELAY_HINTS',
      'RELAY_CONNECT_MS',
      'RELAY_TIMEOUT_MS',
      'RelayPool',
      'allowRelayHintsFrom',
      'browserManifestIo',
      'createBrowserManifestGatherer',
      'describeRelayMiss',
      'fetchEventFromRelays',
      'hashText',
      'isLoopbackHost',
      'nip05Url',
      'parseRelays',
      'pickRelayHints',
      'queryRelay',
      'readServedPage',
      'readSignatureBlock',
      'readSignerNip05',
      'resolveNip05',
    ]);
    expect(Object.keys(rules).sort()).toEqual([
      'PROBLEM_CODES',
      'createProblem',
      'decideVerdict',
      'describeCoverage',
      'isSameAddress',
      'judgeFileEvent',
      'judgePage',
      'normalizeAddress',
      'refusalProblemCode',
    ]);
    expect(Object.keys(evidence).sort()).toEqual([
      'EVIDENCE_FORMAT',
      'EVIDENCE_LIMITS',
      'buildEvidence',
      'checkEvidence',
      'createEvidenceRecorder',
      'isObservedOnly',
      'readEvidence',
    ]);
  });

  it('keeps the rule book and evidence free of Node built-ins, so browsers and extensions can import `@siegel/core/rules` and `@siegel/core/evidence`', async () => {
    const { build } = await import('esbuild');
    for (const entry of [
      'src/verify/rules.ts',
      'src/verify/browser.ts',
      'src/verify/evidence.ts',
      'src/net/address-policy.ts',
      'src/nostr/event-shape.ts',
    ]) {
      const result = await build({
        absWorkingDir: fileURLToPath(new URL('..', import.meta.url)),
        entryPoints: [entry],
        bundle: true,
        write: false,
        platform: 'browser',
        format: 'esm',
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(
        inputs.filter((input) => input.startsWith('node:')),
        entry,
      ).toEqual([]);
      expect(
        inputs.some((input) => input.includes('nostr/crypto')),
        entry,
      ).toBe(false);
    }
  });

  it('maps each subpath to its module in package.json, with types', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg.exports).toEqual({
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './integration': {
        types: './dist/integration/integration.d.ts',
        import: './dist/integration/integration.js',
      },
      './crypto': { types: './dist/nostr/crypto.d.ts', import: './dist/nostr/crypto.js' },
      './fs': { types: './dist/fs/atomic-write.d.ts', import: './dist/fs/atomic-write.js' },
      './auth': { types: './dist/auth/tokens.d.ts', import: './dist/auth/tokens.js' },
      './rules': { types: './dist/verify/rules.d.ts', import: './dist/verify/rules.js' },
      './browser': { types: './dist/verify/browser.d.ts', import: './dist/verify/browser.js' },
      './relay': { types: './dist/nostr/relay.d.ts', import: './dist/nostr/relay.js' },
      './evidence': { types: './dist/verify/evidence.d.ts', import: './dist/verify/evidence.js' },
      './text': { types: './dist/text/terminal-text.d.ts', import: './dist/text/terminal-text.js' },
      './require-node': './bin/require-node.js',
      './package.json': './package.json',
    });
  });

  it('keeps the three German messages of the seed exactly, plus the one for a rejected token', () => {
    expect(core.GERMAN_MESSAGES).toEqual({
      token_missing: 'BUNKER_API_TOKEN nicht gesetzt',
      token_rejected: 'BUNKER_API_TOKEN ungültig',
      key_not_found: 'Key nicht gefunden',
      key_locked: 'Key ist gesperrt',
    });
  });
});
