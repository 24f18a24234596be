import type { EntityRef } from './platform/model';

/**
 * Uploads that failed and can still be sent, kept with their file in this browser so that Retry
 * survives what ends the page: signing in again after a session ended (the sign-in leaves the page),
 * or a reload. Kept only until sent, dismissed, or the person signs out; never another person's.
 */
export interface KeptUpload {
  /** The upload row's id. */
  id: string;
  entity: EntityRef;
  fileType: string;
  private: boolean;
  meta: Record<string, unknown>;
  /** The same key for every attempt: a retry never makes a second file on a platform that honours it. */
  idempotencyKey: string;
  file: File;
  /** A resumable upload's id at the platform: Retry continues it from the last byte received. */
  resumeId?: string;
  /** Why it failed, in words, as the row said it. */
  error: string;
  /** The person it was kept for (browser-memory's owner), when known. */
  owner: number | null;
}

export interface KeptUploads {
  keep(upload: KeptUpload): Promise<void>;
  drop(id: string): Promise<void>;
  /** The kept uploads of one slot, oldest first. */
  of(entity: EntityRef, fileType: string): Promise<KeptUpload[]>;
  /** Everything, on sign-out or when another person signs in here. */
  clear(): Promise<void>;
}

const sameSlot = (upload: KeptUpload, entity: EntityRef, fileType: string) =>
  upload.fileType === fileType && upload.entity.type === entity.type && upload.entity.id === entity.id;

/**
 * In IndexedDB, which keeps a File's bytes (structured clone) where sessionStorage keeps only text.
 * Any failure of the store itself (private browsing, quota) leaves uploads as they were without it:
 * in memory for the page's life.
 */
export function indexedDbKeptUploads(name = 'asset-manager-uploads'): KeptUploads {
  const store = 'failed';
  let opened: Promise<IDBDatabase> | undefined;
  const database = () =>
    (opened ??= new Promise((resolve, reject) => {
      const request = indexedDB.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(store, { keyPath: 'id' });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB is not available'));
    }));
  async function run<T>(mode: IDBTransactionMode, act: (objects: IDBObjectStore) => IDBRequest<T>) {
    const db = await database();
    return new Promise<T>((resolve, reject) => {
      const request = act(db.transaction(store, mode).objectStore(store));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB refused'));
    });
  }
  const quietly = async <T>(work: () => Promise<T>, otherwise: T) => {
    try {
      return await work();
    } catch {
      return otherwise;
    }
  };
  return {
    keep: (upload) => quietly(async () => void (await run('readwrite', (s) => s.put(upload))), undefined),
    drop: (id) => quietly(async () => void (await run('readwrite', (s) => s.delete(id))), undefined),
    of: (entity, fileType) =>
      quietly(async () => {
        const all = (await run('readonly', (s) => s.getAll())) as KeptUpload[];
        return all.filter((upload) => sameSlot(upload, entity, fileType));
      }, []),
    clear: () => quietly(async () => void (await run('readwrite', (s) => s.clear())), undefined),
  };
}

/** The same in memory: for tests, and where a page has no IndexedDB. */
export function memoryKeptUploads(): KeptUploads {
  const kept = new Map<string, KeptUpload>();
  return {
    keep: async (upload) => void kept.set(upload.id, upload),
    drop: async (id) => void kept.delete(id),
    of: async (entity, fileType) => [...kept.values()].filter((u) => sameSlot(u, entity, fileType)),
    clear: async () => kept.clear(),
  };
}

/**
 * The page's store: IndexedDB where the browser has it. Cleared with the rest of what this browser
 * remembers for a person (browser-memory.ts: sign-out, or another person signing in).
 */
export const keptUploads: KeptUploads =
  typeof indexedDB === 'undefined' ? memoryKeptUploads() : indexedDbKeptUploads();
