/** 64 lowercase hex characters: an event id, a pubkey, a SHA-256 hash. */
export const HEX64 = /^[0-9a-f]{64}$/;
