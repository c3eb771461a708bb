import { defineConfig } from 'vitest/config';

// One project per package, plus `test/` for what crosses packages (real processes, builds, Chromium).
export default defineConfig({
  test: {
    projects: ['packages/*', 'server', 'test'],
  },
});
