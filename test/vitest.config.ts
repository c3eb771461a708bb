import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'e2e',
    include: ['**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
