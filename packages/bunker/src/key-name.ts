import { BunkerError } from './errors.js';

/**
 * What a key name may be: 1–64 characters of ASCII letters, digits, `.`, `_` and `-`, not starting with
 * `.` or `-`. Names become file names in the data directory, so nothing else is accepted (no `/`, `\`,
 * `..`, NUL, or non-ASCII look-alikes).
 */
export const KEY_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;

/** Whether `name` is a valid key name (see {@link KEY_NAME_PATTERN}). */
export function isValidKeyName(name: unknown): name is string {
  return typeof name === 'string' && KEY_NAME_PATTERN.test(name);
}

/**
 * Return `name` if it is a valid key name.
 *
 * @throws {BunkerError} `invalid_request` naming the bad value.
 * @example
 * ```ts
 * assertKeyName('default'); // 'default'
 * assertKeyName('../etc'); // throws
 * ```
 */
export function assertKeyName(name: unknown): string {
  if (isValidKeyName(name)) return name;
  const shown = typeof name === 'string' ? `\`${name.slice(0, 80)}\`` : typeof name;
  throw new BunkerError(
    'invalid_request',
    `Invalid key name ${shown}: use 1–64 characters of A–Z, a–z, 0–9, \`.\`, \`_\`, \`-\`, not starting with \`.\` or \`-\``,
  );
}
