import { describe, expect, it } from 'vitest';
import { loadConfig } from './env';

/** BLOB_STORE and S3_*: checked at boot, each missing or bad variable named. */

const complete = {
  BLOB_STORE: 's3',
  S3_ENDPOINT: 'http://127.0.0.1:9000/',
  S3_REGION: 'eu-central-1',
  S3_BUCKET: 'assets',
  S3_ACCESS_KEY_ID: 'key-id',
  S3_SECRET_ACCESS_KEY: 'secret',
};

/** The message a refused boot prints. */
const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('storage configuration', () => {
  it('keeps files on disk unless told otherwise, whatever S3_* says', () => {
    expect(loadConfig({}).blobStore).toEqual({ kind: 'fs' });
    expect(loadConfig({ S3_BUCKET: 'assets' }).blobStore).toEqual({ kind: 'fs' });
  });

  it('reads a complete S3 configuration', () => {
    expect(
      loadConfig({
        ...complete,
        S3_FORCE_PATH_STYLE: '1',
        S3_DELIVERY: 'redirect',
        S3_REQUEST_TIMEOUT_MS: '5000',
      }).blobStore,
    ).toEqual({
      kind: 's3',
      endpoint: 'http://127.0.0.1:9000/',
      region: 'eu-central-1',
      bucket: 'assets',
      credentials: { accessKeyId: 'key-id', secretAccessKey: 'secret' },
      forcePathStyle: true,
      delivery: 'redirect',
      requestTimeoutMs: 5000,
    });
    // AWS itself: no endpoint; credentials from the SDK's own chain (instance role, AWS_* variables).
    expect(
      loadConfig({ BLOB_STORE: 's3', S3_REGION: 'eu-central-1', S3_BUCKET: 'assets' }).blobStore,
    ).toEqual({
      kind: 's3',
      endpoint: undefined,
      region: 'eu-central-1',
      bucket: 'assets',
      credentials: undefined,
      forcePathStyle: false,
      delivery: 'stream',
      requestTimeoutMs: 30_000,
    });
  });

  it('refuses to boot on S3 without a bucket and a region, naming both', () => {
    const message = refusal({ BLOB_STORE: 's3' });
    expect(message).toContain('S3_BUCKET: required when BLOB_STORE=s3');
    expect(message).toContain('S3_REGION: required when BLOB_STORE=s3');
  });

  it('refuses half a key pair, naming the missing half', () => {
    const { S3_SECRET_ACCESS_KEY: _secret, ...withoutSecret } = complete;
    expect(refusal(withoutSecret)).toMatch(/S3_SECRET_ACCESS_KEY: .*go together/);
    const { S3_ACCESS_KEY_ID: _id, ...withoutId } = complete;
    expect(refusal(withoutId)).toMatch(/S3_ACCESS_KEY_ID: .*go together/);
  });

  it('refuses values that are not one of the choices', () => {
    expect(refusal({ ...complete, BLOB_STORE: 'gcs' })).toContain('BLOB_STORE');
    expect(refusal({ ...complete, S3_ENDPOINT: 'minio:9000' })).toContain('S3_ENDPOINT');
    expect(refusal({ ...complete, S3_DELIVERY: 'proxy' })).toContain('S3_DELIVERY');
    expect(refusal({ ...complete, S3_FORCE_PATH_STYLE: 'yes' })).toContain('S3_FORCE_PATH_STYLE');
  });
});
