import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { isMissingObject, listPages, presignGet } from '../storage/s3-client';
import { type CachedRendition, type RenditionCache, safeName } from './rendition-cache';

/**
 * Renditions in the bucket, beside the blobs: `renditions/v1/<blob key>/<rendition name>.webp`.
 * The same cache as the disk's (rendition-cache.ts), with S3's atomic PutObject in place of the
 * temporary file and rename: an object is whole or absent, so there are no temporary leftovers,
 * only older generations to remove. Several instances may render the same rendition at once: the
 * bytes are the same, the last write wins.
 */
const root = 'renditions/';
const generation = 'v1';
const current = `${root}${generation}/`;
const extension = '.webp';

// Stays whole: the RenditionCache's methods in the interface's order, each short, over one bucket in this
// closure.
export function createS3RenditionCache(client: S3Client, bucket: string): RenditionCache {
  function folderOf(blobKey: string) {
    if (!safeName.test(blobKey)) throw new Error('invalid blob key for the rendition cache');
    return `${current}${blobKey}/`;
  }
  function keyOf(blobKey: string, name: string) {
    if (!safeName.test(name)) throw new Error('invalid rendition name');
    return `${folderOf(blobKey)}${name}${extension}`;
  }

  async function get(Key: string, range?: { start: number; end: number }) {
    try {
      return await client.send(
        new GetObjectCommand({ Bucket: bucket, Key, Range: range && `bytes=${range.start}-${range.end}` }),
      );
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw error;
    }
  }

  async function removeUnder(prefix: string, which: (key: string) => boolean = () => true) {
    let removed = 0;
    for await (const page of listPages(client, { Bucket: bucket, Prefix: prefix })) {
      const doomed = (page.Contents ?? []).map((object) => object.Key!).filter(which);
      await Promise.all(doomed.map((Key) => client.send(new DeleteObjectCommand({ Bucket: bucket, Key }))));
      removed += doomed.length;
    }
    return removed;
  }

  async function listNames(blobKey: string) {
    const folder = folderOf(blobKey);
    const names: string[] = [];
    for await (const page of listPages(client, { Bucket: bucket, Prefix: folder })) {
      for (const object of page.Contents ?? []) {
        const name = object.Key!.slice(folder.length);
        if (name.endsWith(extension)) names.push(name.slice(0, -extension.length));
      }
    }
    return names;
  }

  return {
    async open(blobKey, name) {
      // The whole object at once: most deliveries want all of it, and then this is their only request.
      const whole = await get(keyOf(blobKey, name));
      if (!whole) return undefined;
      let body: Readable | undefined = whole.Body as Readable;
      const release = () => {
        body?.destroy();
        body = undefined;
      };
      const rendition: CachedRendition = {
        size: whole.ContentLength!,
        async stream(range) {
          if (!range && body) {
            const bytes = body;
            body = undefined;
            return bytes;
          }
          release();
          return (await get(keyOf(blobKey, name), range))?.Body as Readable | undefined;
        },
        close: async () => release(),
      };
      return rendition;
    },

    async has(blobKey, name) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(blobKey, name) }));
        return true;
      } catch (error) {
        if (isMissingObject(error)) return false;
        throw error;
      }
    },

    async write(blobKey, name, bytes) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: keyOf(blobKey, name),
          Body: bytes,
          ContentType: 'image/webp',
        }),
      );
    },

    async removeAll(blobKey) {
      await removeUnder(folderOf(blobKey));
    },

    async removeWhere(blobKey, stale) {
      const folder = folderOf(blobKey);
      return removeUnder(
        folder,
        (key) => key.endsWith(extension) && stale(key.slice(folder.length, -extension.length)),
      );
    },

    async removeLeftovers() {
      // Older generations, and anything else under the prefix that this generation did not write.
      let removed = 0;
      for await (const page of listPages(client, { Bucket: bucket, Prefix: root, Delimiter: '/' })) {
        for (const { Prefix } of page.CommonPrefixes ?? []) {
          if (Prefix && Prefix !== current && (await removeUnder(Prefix)) > 0) removed++;
        }
        removed += (
          await Promise.all(
            (page.Contents ?? []).map((object) =>
              client.send(new DeleteObjectCommand({ Bucket: bucket, Key: object.Key! })),
            ),
          )
        ).length;
      }
      return removed;
    },

    async *originals() {
      // Listed in key order, so each original's renditions come one after another.
      let group: { blobKey: string; names: string[] } | undefined;
      for await (const page of listPages(client, { Bucket: bucket, Prefix: current })) {
        for (const object of page.Contents ?? []) {
          const [blobKey, file, ...deeper] = object.Key!.slice(current.length).split('/');
          if (!blobKey || !safeName.test(blobKey) || file === undefined || deeper.length > 0) continue;
          if (group?.blobKey !== blobKey) {
            if (group) yield group;
            group = { blobKey, names: [] };
          }
          if (file.endsWith(extension)) group.names.push(file.slice(0, -extension.length));
        }
      }
      if (group) yield group;
    },

    names: listNames,

    presignedUrl: (blobKey, name, headers) => presignGet(client, bucket, keyOf(blobKey, name), headers),
  };
}
