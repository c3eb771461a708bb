import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'bunker',
    include: ['test/**/*.test.{ts,tsx}'],
  },
});
