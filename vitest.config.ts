import { defineConfig } from 'vitest/config';

/** One S3 server (s3rver, a child process) per run, for the tests that use a bucket. */
const s3Server = 'src/platform/testing/s3.ts';

/**
 * Tests of the disk store's own ways, which a bucket does not have: temporary files, fsync, renames
 * and modes, a full disk (ENOSPC from a tiny tmpfs). The BlobStore contract (blob-store.test.ts) and
 * the S3 store's own tests run on both stores.
 */
const diskStoreTests = [
  'src/platform/storage/fs-blob-store.test.ts',
  'src/platform/storage/file-writer.test.ts',
  'src/platform/storage/disk-full.test.ts',
];

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
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'e2e/support/**/*.test.ts', 'scripts/*.test.ts'],
          // What only the scale-out backends can do (several instances on one database, on one Redis)
          // runs in platform-scaled alone: *.scaled.test.ts and *.redis.test.ts.
          exclude: ['src/web/**', 'src/**/*.scaled.test.ts', 'src/**/*.redis.test.ts'],
          environment: 'node',
          globalSetup: [s3Server],
        },
      },
      {
        // The platform's integration tests again, on the scale-out backends (issue 15), each test
        // platform with a fresh PostgreSQL schema, a bucket of its own on the tests' S3 server and a
        // Redis key prefix of its own (src/platform/testing/backends.ts). `.ci/run` brings PostgreSQL
        // and Redis up where they are missing.
        extends: true,
        test: {
          name: 'platform-scaled',
          include: ['src/platform/**/*.test.ts'],
          exclude: diskStoreTests,
          environment: 'node',
          globalSetup: [s3Server],
          env: { TEST_DATABASE: 'postgres', TEST_BLOB_STORE: 's3', TEST_REDIS: '1' },
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
          // tus-js-client has a browser build (XMLHttpRequest, Blob slices, localStorage) and a Node one
          // (node:http, streams), chosen by package.json's `browser` field, which Node ignores: the
          // app's bundle gets the browser build, and so must the tests' DOM.
          server: { deps: { inline: ['tus-js-client'] } },
        },
        resolve: { mainFields: ['browser', 'module', 'main'] },
      },
    ],
  },
});
