import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Integration tests start real servers on real ports and use scrypt; give them room on 2 cores.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'e2e/support/**/*.test.ts'],
          exclude: ['src/web/**'],
          environment: 'node',
        },
      },
      {
        // The web app's logic and components in a DOM (jsdom); the network is MSW's, in process.
        extends: true,
        test: {
          name: 'web',
          include: ['src/web/**/*.test.ts', 'src/web/**/*.test.tsx'],
          environment: 'jsdom',
          setupFiles: ['src/web/testing/setup.ts'],
        },
      },
    ],
  },
});
