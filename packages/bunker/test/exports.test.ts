import { describe, expect, it } from 'vitest';
import * as bunker from '../src/index.js';

describe('@siegel/bunker', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(bunker).sort()).toEqual([
      'BunkerError',
      'DEFAULTS',
      'ERROR_STATUS',
      'KEY_NAME_PATTERN',
      'KeyStore',
      'MAX_EVENT_BYTES',
      'assertKeyName',
      'consoleLogger',
      'createApp',
      'isValidKeyName',
      'jsEngine',
      'loadSigningEngine',
      'noAuditLog',
      'openAuditLog',
      'parseEventTemplate',
      'silentLogger',
      'startBunker',
      'tokensEqual',
    ]);
  });
});
