import { describe, expect, it } from 'vitest';
import { formatByteSize, parseByteSize } from '../src/text/byte-size.js';

describe('byte sizes', () => {
  it('reads bytes and sizes with a unit, decimal and binary, in any case', () => {
    expect(parseByteSize('33554432', 'x')).toBe(33_554_432);
    expect(parseByteSize('32MiB', 'x')).toBe(33_554_432);
    expect(parseByteSize(' 32 mib ', 'x')).toBe(33_554_432);
    expect(parseByteSize('1.5KiB', 'x')).toBe(1536);
    expect(parseByteSize('2MB', 'x')).toBe(2_000_000);
    expect(parseByteSize('1G', 'x')).toBe(1_000_000_000);
  });

  it('refuses anything else, naming the setting and quoting the value', () => {
    for (const bad of ['', 'lots', '-1', '0', '3 parsecs', '1e9', 'MiB', '0.1'])
      expect(() => parseByteSize(bad, '--max-page-bytes')).toThrow(
        `\`--max-page-bytes\` must be a size in bytes such as \`33554432\` or \`32MiB\`, got \`${bad}\``,
      );
  });

  it('writes sizes for people in binary units', () => {
    expect(formatByteSize(512)).toBe('512 bytes');
    expect(formatByteSize(1536)).toBe('1.5 KiB');
    expect(formatByteSize(55_123_952)).toBe('52.6 MiB');
    expect(formatByteSize(32 * 1024 * 1024)).toBe('32 MiB');
    expect(formatByteSize(300 * 1024 * 1024)).toBe('300 MiB');
    expect(formatByteSize(3 * 1024 ** 3)).toBe('3 GiB');
  });
});
