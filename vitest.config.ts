import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Integration tests start real servers on real ports and use scrypt; give them room on 2 cores
    // kept busy by other work (npm run test:busy), where a platform with its demo data took over
    // 30 s to start and sign its users in, and an upload test over 20 s.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A condition polled for (expect.poll) gets half a test's limit: on a busy machine a file
    // removed or a line logged "at once" can take seconds. Tests that wait longer say so.
    expect: { poll: { timeout: 30_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'e2e/support/**/*.test.ts'],
          // Tests of several instances sharing Redis need Redis whatever the backend: platform-redis.
          exclude: ['src/web/**', 'src/**/*.redis.test.ts'],
          environment: 'node',
        },
      },
      {
        // The platform's suite again, with every test platform keeping its shared state (rate limits,
        // sign-in throttling, the upload cap, revocations) in the Redis at TEST_REDIS_URL
        // (src/platform/testing/redis.ts), plus the tests of several instances on one Redis.
        extends: true,
        test: {
          name: 'platform-redis',
          include: ['src/platform/**/*.test.ts'],
          environment: 'node',
          env: { TEST_REDIS: '1' },
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
