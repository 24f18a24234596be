import type { AssetableType } from '../../shared/api/assetable';
import { keptUploads } from './kept-uploads';
import { unfinishedUploads } from './unfinished-uploads';

/**
 * What this browser remembers for the person signed in, for platforms that do not say it themselves:
 * the entities they opened lately (when there is no `/me` to list what they own) and the files they
 * uploaded from here (when an entity does not list its files), uploads that failed and can still be
 * sent (kept-uploads.ts, with their files), and resumable uploads not finished (unfinished-uploads.ts). Kept in localStorage so it survives the
 * tab; cleared on sign-out, and when the platform names a different user than the one it was kept for.
 */

const storageKey = 'asset-manager.memory';
const maxRecent = 10;
const maxUploads = 500;

export interface OpenedEntity {
  type: AssetableType;
  id: number;
  name?: string;
}

interface UploadedHere {
  type: AssetableType;
  id: number;
  fileId: number;
}

interface Memory {
  /** The user it was kept for, when the platform said (`/me`); null when it did not. */
  owner: number | null;
  opened: OpenedEntity[];
  uploads: UploadedHere[];
}

const empty = (): Memory => ({ owner: null, opened: [], uploads: [] });

function read(): Memory {
  try {
    const stored = JSON.parse(localStorage.getItem(storageKey) ?? 'null') as Memory | null;
    return stored && Array.isArray(stored.opened) && Array.isArray(stored.uploads) ? stored : empty();
  } catch {
    return empty();
  }
}

const write = (memory: Memory) => localStorage.setItem(storageKey, JSON.stringify(memory));
const same = (a: { type: string; id: number }, b: { type: string; id: number }) =>
  a.type === b.type && a.id === b.id;

/** The platform named the signed-in user: another user's memory is dropped, not shown. */
export function keepFor(userId: number): void {
  const memory = read();
  if (memory.owner === userId) return;
  if (memory.owner !== null) {
    void keptUploads.clear();
    unfinishedUploads.clear();
  }
  write({ ...(memory.owner === null ? memory : empty()), owner: userId });
}

/** Whom this browser's memory is kept for, when the platform said. */
export const keptForUser = (): number | null => read().owner;

export function rememberOpened(entity: OpenedEntity): void {
  const memory = read();
  const known = memory.opened.find((e) => same(e, entity));
  const name = entity.name ?? known?.name;
  const opened = [{ ...entity, ...(name ? { name } : {}) }, ...memory.opened.filter((e) => !same(e, entity))];
  write({ ...memory, opened: opened.slice(0, maxRecent) });
}

export const recentlyOpened = (): OpenedEntity[] => read().opened;

export function rememberUpload(entity: { type: AssetableType; id: number }, fileId: number): void {
  const memory = read();
  const uploads = [...memory.uploads.filter((u) => u.fileId !== fileId), { ...entity, fileId }];
  write({ ...memory, uploads: uploads.slice(-maxUploads) });
}

export const uploadsHere = (entity: { type: AssetableType; id: number }): number[] =>
  read()
    .uploads.filter((u) => same(u, entity))
    .map((u) => u.fileId);

export function forgetUploads(fileIds: number[]): void {
  const memory = read();
  write({ ...memory, uploads: memory.uploads.filter((u) => !fileIds.includes(u.fileId)) });
}

export function forgetEverything(): void {
  void keptUploads.clear();
  unfinishedUploads.clear();
  localStorage.removeItem(storageKey);
}
