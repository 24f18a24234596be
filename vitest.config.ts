import { defineConfig } from 'vitest/config';

/** One S3 server (s3rver, a child process) per run, for the tests that use a bucket. */
const s3Server = 'src/platform/testing/s3.ts';

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
          exclude: ['src/web/**'],
          environment: 'node',
          globalSetup: [s3Server],
        },
      },
      {
        // The platform's suite once more with its files in an S3 bucket (TEST_BLOB_STORE=s3 makes
        // startPlatform give each platform a bucket of its own). Run it on its own:
        // `npx vitest run --project platform-s3`.
        extends: true,
        test: {
          name: 'platform-s3',
          include: ['src/platform/**/*.test.ts'],
          exclude: platformS3Exclusions(),
          environment: 'node',
          globalSetup: [s3Server],
          env: { TEST_BLOB_STORE: 's3' },
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

/**
 * Tests that are about the local disk itself, not about the platform: they mean nothing with the
 * files in a bucket (their S3 counterparts are the S3 store's own tests).
 */
function platformS3Exclusions() {
  return [
    // The disk store's temporary files, fsync and renames; the contract tests run on both stores.
    'src/platform/storage/fs-blob-store.test.ts',
    'src/platform/storage/file-writer.test.ts',
  ];
}
