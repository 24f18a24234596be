import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { PlatformConfig } from '../config/env';
import { createS3Client } from '../storage/s3-client';
import { blobPrefix } from '../storage/s3-blob-store';
import { bucketContents } from './blob-stores';

/** A test platform's files, wherever its configuration keeps them (DATA_DIR or its bucket). */
interface Stored {
  config: PlatformConfig;
  dataDir: string;
}

/** Objects of the platform's bucket under `prefix`, named relative to it. */
async function objectsUnder(config: PlatformConfig, prefix: string) {
  if (config.blobStore.kind !== 's3') throw new Error('not on S3');
  const client = createS3Client(config.blobStore);
  try {
    const { objects } = await bucketContents(client, config.blobStore.bucket);
    return objects.filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
  } finally {
    client.destroy();
  }
}

/** The keys of every committed file: originals and thumbnails (not staging leftovers). */
export async function storedBlobKeys(platform: Stored): Promise<string[]> {
  if (platform.config.blobStore.kind === 's3') return objectsUnder(platform.config, blobPrefix);
  const root = join(platform.dataDir, 'blobs');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((folder) => folder !== 'tmp')
    .flatMap((folder) => readdirSync(join(root, folder)));
}

/** The cached renditions of one original, as file names (`preview-w320.webp`). */
export async function renditionFiles(platform: Stored, blobKey: string): Promise<string[]> {
  if (platform.config.blobStore.kind === 's3') {
    return objectsUnder(platform.config, `renditions/v1/${blobKey}/`);
  }
  const folder = join(platform.dataDir, 'renditions', 'v1', blobKey);
  return existsSync(folder) ? readdirSync(folder) : [];
}

/** Every path under the rendition cache's root (`v1/<key>/<name>.webp`; on disk `tmp/…` too). */
export async function renditionPaths(platform: Stored): Promise<string[]> {
  if (platform.config.blobStore.kind === 's3') return objectsUnder(platform.config, 'renditions/');
  const root = join(platform.dataDir, 'renditions');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1));
}

/** Leaves a file at `path` under the rendition cache's root, as a crash or an older version would. */
export async function plantRendition(platform: Stored, path: string) {
  const { blobStore } = platform.config;
  if (blobStore.kind === 's3') {
    const client = createS3Client(blobStore);
    try {
      await client.send(
        new PutObjectCommand({ Bucket: blobStore.bucket, Key: `renditions/${path}`, Body: Buffer.from('x') }),
      );
    } finally {
      client.destroy();
    }
    return;
  }
  const file = join(platform.dataDir, 'renditions', path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, 'x');
}

/**
 * What the tus store keeps of one resumable upload: its files under DATA_DIR/resumable-uploads, or
 * its objects and unfinished multipart upload in the bucket (@tus/s3-store: `<id>`, `<id>.info`,
 * `<id>.part`).
 */
export async function resumableUploadTraces(platform: Stored, id: string): Promise<string[]> {
  const { blobStore } = platform.config;
  if (blobStore.kind === 's3') {
    const client = createS3Client(blobStore);
    try {
      const { objects, uploads } = await bucketContents(client, blobStore.bucket);
      return [...objects, ...uploads.map((key) => `upload:${key}`)].filter((key) =>
        key.replace(/^upload:/, '').startsWith(id),
      );
    } finally {
      client.destroy();
    }
  }
  const root = join(platform.dataDir, 'resumable-uploads');
  return existsSync(root) ? readdirSync(root).filter((file) => file.startsWith(id)) : [];
}
