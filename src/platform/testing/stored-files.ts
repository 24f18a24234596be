import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PlatformConfig } from '../env';
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
