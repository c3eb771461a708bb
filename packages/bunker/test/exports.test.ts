import { describe, expect, it, vi } from 'vitest';
import * as bunker from '../src/index.js';

// Timeouts (docs/testing.md): NIP-49 scrypt key derivations (log N 16): seconds of CPU each, more on a loaded machine
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

describe('@siegel/bunker', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(bunker).sort()).toEqual([
      'BunkerError',
      'ConnectionStore',
      'DEFAULTS',
      'DEFAULT_NIP46_KINDS',
      'DEFAULT_STRANGER_BUDGET',
      'DEFAULT_URI_TTL_MS',
      'ERROR_STATUS',
      'KEY_NAME_PATTERN',
      'KeyStore',
      'MAX_EVENT_BYTES',
      'NIP46_KIND',
      'Nip46Service',
      'RemoteSigner',
      'StrangerBudget',
      'assertKeyName',
      'consoleLogger',
      'createApp',
      'grantPermissions',
      'isValidKeyName',
      'jsEngine',
      'loadSigningEngine',
      'noAuditLog',
      'openAuditLog',
      'parseEventTemplate',
      'parseKinds',
      'silentLogger',
      'startBunker',
      'tokensEqual',
    ]);
  });
});
