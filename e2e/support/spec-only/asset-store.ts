import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { specAssetOf } from '../../../src/testing/spec-examples';
import { type AssetableType, findEntity, type SpecEntity } from './fixtures';
import { type Caller, notFound } from './http';

export interface StoredAsset {
  id: number;
  name: string;
  file_type: string;
  assetable: { type: AssetableType; id: number };
  key: string;
  meta: Record<string, unknown>;
  private: boolean;
  /** Where the bytes are, and the Content-Type the upload declared for them. */
  filePath: string;
  contentType: string;
}

/** Spec 2.2's fields, and only those. No thumbnail_id: this platform makes no thumbnails. */
export const assetJson = (asset: StoredAsset) => specAssetOf(asset);

/** Assets in memory, their files in a temporary directory that `close` removes. */
export class AssetStore {
  private readonly assets = new Map<number, StoredAsset>();
  private lastId = 0;

  private constructor(private readonly dir: string) {}

  static async open(): Promise<AssetStore> {
    return new AssetStore(await mkdtemp(join(tmpdir(), 'spec-only-platform-')));
  }

  /** A fresh path for an upload to stream into before it is known to be valid. */
  uploadPath(): string {
    return join(this.dir, randomUUID());
  }

  add(asset: Omit<StoredAsset, 'id' | 'key'>): StoredAsset {
    // The key's format is not shown (spec 2.2): an opaque random string, as a storage service gives.
    const stored = { ...asset, id: ++this.lastId, key: randomBytes(16).toString('hex') };
    this.assets.set(stored.id, stored);
    return stored;
  }

  get(id: number): StoredAsset | undefined {
    return this.assets.get(id);
  }

  /** The asset when the caller owns its entity; 404 otherwise, so others cannot tell it exists. */
  owned(rawId: string, caller: Caller): StoredAsset {
    const asset = /^\d+$/.test(rawId) ? this.assets.get(Number(rawId)) : undefined;
    if (!asset || findEntity(asset.assetable.type, asset.assetable.id)?.owner !== caller.email)
      throw notFound();
    return asset;
  }

  ofEntity(entity: SpecEntity): StoredAsset[] {
    return [...this.assets.values()].filter(
      (asset) => asset.assetable.type === entity.type && asset.assetable.id === entity.id,
    );
  }

  async delete(asset: StoredAsset): Promise<void> {
    this.assets.delete(asset.id);
    await rm(asset.filePath, { force: true });
  }

  async close(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** The entity when the caller owns it; 404 otherwise (unknown and not yours look the same). */
export function ownedEntity(type: string, rawId: string, caller: Caller): SpecEntity {
  const entity = /^\d+$/.test(rawId) ? findEntity(type, Number(rawId)) : undefined;
  if (!entity || entity.owner !== caller.email) throw notFound();
  return entity;
}
