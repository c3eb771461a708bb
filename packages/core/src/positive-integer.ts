import { SiegelError } from './errors.js';

/**
 * An option that must be a positive integer: `fallback` when unset.
 *
 * @throws {SiegelError} `invalid_options` naming the option and quoting the bad value.
 */
export function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new SiegelError('invalid_options', `\`${name}\` must be a positive integer, got \`${value}\``);
  }
  return value;
}
