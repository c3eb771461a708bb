/** Defaults of DESIGN.md "Signers". */
export const SIGNER_DEFAULTS = {
  /** `BUNKER_URL` when unset. */
  url: 'http://localhost:7777',
  /** `BUNKER_KEY_NAME` when unset. */
  keyName: 'default',
} as const;
