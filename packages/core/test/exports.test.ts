import { describe, expect, it } from 'vitest';
import * as core from '../src/index.js';

describe('@siegel/core exports', () => {
  it('pins the exported names (a change here is an API change)', () => {
    expect(Object.keys(core).sort()).toEqual([
      'BLOCK_END_MARKER',
      'BLOCK_START_MARKER',
      'CACHE_SPEC',
      'CACHE_VERSION',
      'DEFAULT_SELECTOR',
      'GERMAN_MESSAGES',
      'HttpBunkerSigner',
      'INTEGRATION_DEFAULTS',
      'LocalKeySigner',
      'PAGE_EVENT_KIND',
      'SIGNER_DEFAULTS',
      'SIGN_SITE_DEFAULTS',
      'SiegelError',
      'VERIFY_SCRIPT_NAME',
      'analyzePage',
      'applySignatureBlock',
      'compileSelector',
      'createGermanError',
      'createPageEvent',
      'createSigner',
      'findPages',
      'fingerprintFile',
      'formatSummary',
      'formatVerifyReport',
      'handleSigningError',
      'hashContent',
      'hashPage',
      'integrationOptionsSchema',
      'isSiegelError',
      'loadEnv',
      'pageUrl',
      'parseIntegrationOptions',
      'parseRelays',
      'readPageContent',
      'readSignCache',
      'readSignatureBlock',
      'readSignerConfig',
      'readVerifyScript',
      'renderSignatureBlock',
      'renderVerifyPage',
      'resolveSignSiteOptions',
      'runBuildSigning',
      'signSite',
      'toSignSiteOptions',
      'verifySite',
      'writeFileAtomic',
      'writeSignCache',
    ]);
  });

  it('keeps the three German messages of DESIGN exactly, plus the one for a rejected token', () => {
    expect(core.GERMAN_MESSAGES).toEqual({
      token_missing: 'BUNKER_API_TOKEN nicht gesetzt',
      token_rejected: 'BUNKER_API_TOKEN ungültig',
      key_not_found: 'Key nicht gefunden',
      key_locked: 'Key ist gesperrt',
    });
  });
});
