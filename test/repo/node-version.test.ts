import { describe, expect, it } from 'vitest';

// The repository pins Node 24 as a root devDependency so every npm script runs under it, even where the
// system Node is older. If that pin breaks, tests would silently run under the system Node: fail loudly.
describe('toolchain', () => {
  it('runs the tests under the pinned Node 24', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });
});
