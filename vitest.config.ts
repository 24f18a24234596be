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
 * Tests that cannot run on a bucket, each with why; what they guard is checked on S3 elsewhere.
 */
function platformS3Exclusions() {
  return [
    // The disk store's temporary files, fsync, renames and modes; the BlobStore contract
    // (blob-store.test.ts) and the S3 store's own tests (s3-blob-store.test.ts) run on the bucket.
    'src/platform/storage/fs-blob-store.test.ts',
    'src/platform/storage/file-writer.test.ts',
    // A full disk (ENOSPC from a tiny tmpfs); a bucket has no such state.
    'src/platform/storage/disk-full.test.ts',
    // These wait for the upload's temporary file to appear in DATA_DIR/blobs/tmp before cutting the
    // client off (U7, H7, H8, H12). An upload to S3 under 5 MB is one PutObject sent at its end, so
    // nothing in the bucket shows it under way; the S3 store's tests cover a client that vanishes
    // (multipart aborted, nothing kept). Running them on S3 needs a signal of "upload under way"
    // that does not depend on the store.
    'src/platform/assets/asset-security.test.ts',
    'src/platform/assets/slow-uploads.test.ts',
    'src/platform/assets/upload-interruptions.test.ts',
  ];
}
