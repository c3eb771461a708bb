// Sizes in bytes as people write and read them: `32MiB` in an option, `1.2 MB` in a message.
import { SiegelError } from '../errors.js';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1000,
  kb: 1000,
  kib: 1024,
  m: 1000 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1000 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/**
 * A size in bytes from `text`: a whole number of bytes, or a number with a unit (`kB`, `KiB`, `MB`, `MiB`,
 * `GB`, `GiB`; case does not matter).
 *
 * @example
 * ```ts
 * parseByteSize('32MiB', 'maxPageBytes'); // 33554432
 * ```
 * @throws {SiegelError} `invalid_options` naming `name` and quoting `text` when it is not a positive size.
 */
export function parseByteSize(text: string, name: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = match ? UNITS[(match[2] ?? '').toLowerCase()] : undefined;
  const bytes = match && unit ? Math.floor(Number(match[1]) * unit) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw new SiegelError(
      'invalid_options',
      `\`${name}\` must be a size in bytes such as \`33554432\` or \`32MiB\`, got \`${text}\``,
    );
  }
  return bytes;
}

/**
 * A size for people, in the largest binary unit that keeps it at least 1: `512 bytes`, `1.2 MiB`.
 *
 * @example
 * ```ts
 * formatByteSize(1_258_291); // '1.2 MiB'
 * ```
 */
export function formatByteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? Math.round(value) : Number(value.toFixed(1))} ${units[unit]}`;
}

/**
 * A size for people with the exact count for a message that quotes it: `` `800` bytes `` or
 * ``52.6 MiB (`55123952` bytes)``.
 *
 * @example
 * ```ts
 * describeByteSize(55_123_952); // '52.6 MiB (`55123952` bytes)'
 * ```
 */
export function describeByteSize(bytes: number): string {
  return bytes < 1024 ? `\`${bytes}\` bytes` : `${formatByteSize(bytes)} (\`${bytes}\` bytes)`;
}
