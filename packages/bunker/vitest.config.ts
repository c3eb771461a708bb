import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'bunker',
    // Key-store tests derive several scrypt keys (NIP-49) each: seconds of CPU, more on a loaded machine.
    testTimeout: 20_000,
    include: ['test/**/*.test.{ts,tsx}'],
  },
});
