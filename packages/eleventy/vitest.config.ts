import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'eleventy',
    include: ['test/**/*.test.{ts,tsx}'],
  },
});
