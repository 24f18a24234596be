import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Integration tests start real servers on real ports and use scrypt; give them room on 2 cores.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A condition polled for (expect.poll) gets most of a test's limit: on a busy machine a file
    // removed or a line logged "at once" can take seconds. Tests that wait longer say so.
    expect: { poll: { timeout: 15_000 } },
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
