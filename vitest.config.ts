import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    // Integration tests start real servers on real ports and use scrypt; give them room on 2 cores.
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
