import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The tests' S3 server (testing/s3rver-process.ts), started once per run by `setup`. */
    s3Endpoint: string;
  }
}

/** s3rver's built-in account. */
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const region = 'us-east-1';
const serverScript = fileURLToPath(new URL('./s3rver-process.ts', import.meta.url));
/** node, tsx and s3rver loading on a busy machine. */
const startDeadlineMs = 60_000;

let stop: (() => Promise<void>) | undefined;

/**
 * Vitest globalSetup: one s3rver for the whole run, as a child process (it is CommonJS, old, and
 * needs OpenSSL's legacy provider for its listing tokens: none of that belongs in a test worker).
 */
export async function setup(project: TestProject) {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', '--import', 'tsx', serverScript, directory],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('s3rver did not start')), startDeadlineMs);
    let output = '';
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString();
      const line = output.split('\n')[0];
      if (output.includes('\n') && line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited (${code}) before listening`));
    });
  });
  project.provide('s3Endpoint', `http://127.0.0.1:${port}`);
  stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
    rmSync(directory, { recursive: true, force: true });
  };
}

export async function teardown() {
  await stop?.();
}

/** The tests' S3 server; only in projects whose globalSetup is this module. */
export function s3Endpoint(): string {
  const endpoint = inject('s3Endpoint');
  if (!endpoint) throw new Error('No test S3 server: add src/platform/testing/s3.ts to the globalSetup.');
  return endpoint;
}

/** How to reach the test server, for a client of one's own (in a child process, say). */
export const testS3ClientConfig = () => ({
  endpoint: s3Endpoint(),
  region,
  credentials,
  forcePathStyle: true,
});

/** An S3 client of the test server, for tests that look into a bucket from outside the platform. */
export function testS3Client() {
  return new S3Client(testS3ClientConfig());
}

/**
 * A new, empty bucket on the test server; answers the platform's environment for it (BLOB_STORE,
 * S3_*), so that each test platform has a bucket of its own.
 */
export async function s3TestEnv(): Promise<Record<string, string>> {
  const bucket = `test-${randomBytes(8).toString('hex')}`;
  const client = testS3Client();
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return s3EnvOf({ endpoint: s3Endpoint(), bucket });
}

/** The platform's environment for a bucket of the test server (another instance's, say). */
export function s3EnvOf(store: { endpoint?: string; bucket: string }): Record<string, string> {
  return {
    BLOB_STORE: 's3',
    S3_ENDPOINT: store.endpoint ?? s3Endpoint(),
    S3_REGION: region,
    S3_BUCKET: store.bucket,
    S3_ACCESS_KEY_ID: credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    S3_FORCE_PATH_STYLE: '1',
  };
}
