import { createHash } from 'node:crypto';

/**
 * SHA-256 of the UTF-8 bytes of `content`, lowercase hex — the hash step of `siegel-page/1`.
 *
 * @example
 * ```ts
 * hashContent('Hi'); // '3639efcd08abb273b1619e82e78c29a7df02c1051b1820e99fc395dcaa3326b8'
 * ```
 */
export function hashContent(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}
