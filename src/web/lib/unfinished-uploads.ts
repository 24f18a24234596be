import type { PreviousUpload, UrlStorage } from 'tus-js-client';

/**
 * Resumable uploads this browser started and has not finished, as tus-js-client records them (its
 * `UrlStorage`): the upload's address at the platform, its size and metadata, under a fingerprint of
 * the file and the slot (lib/platform/resumable-upload.ts). After a reload the app lists them ("2
 * uploads can continue") and resumes one when the same file is chosen again.
 *
 * In localStorage under one key of ours rather than tus-js-client's own `tus::` keys, so that signing
 * out (browser-memory.ts) clears them with the rest of what the browser keeps for a person. Each
 * record's key is its upload's address: saving the same upload again (tus-js-client does so on every
 * resume) replaces it rather than adding a second.
 */
export interface UnfinishedUploadStore extends UrlStorage {
  /** Everything, on sign-out or when another person signs in here. */
  clear(): void;
}

interface Stored {
  fingerprint: string;
  upload: Omit<PreviousUpload, 'urlStorageKey'>;
}

const storageKey = 'asset-manager.unfinished-uploads';

function read(): Stored[] {
  try {
    const stored = JSON.parse(localStorage.getItem(storageKey) ?? '[]') as unknown;
    return Array.isArray(stored) ? (stored as Stored[]) : [];
  } catch {
    return []; // A damaged entry is forgotten: the platform sweeps what it held after its expiry.
  }
}

function write(records: Stored[]): void {
  try {
    if (records.length === 0) localStorage.removeItem(storageKey);
    else localStorage.setItem(storageKey, JSON.stringify(records));
  } catch {
    // Storage full or refused (private browsing): the upload goes on, it just cannot be resumed after a reload.
  }
}

const asPrevious = ({ upload }: Stored): PreviousUpload => ({
  ...upload,
  urlStorageKey: upload.uploadUrl ?? '',
});

export const unfinishedUploads: UnfinishedUploadStore = {
  findAllUploads: async () => read().map(asPrevious),
  findUploadsByFingerprint: async (fingerprint) =>
    read()
      .filter((record) => record.fingerprint === fingerprint)
      .map(asPrevious),
  removeUpload: async (key) => write(read().filter((record) => record.upload.uploadUrl !== key)),
  addUpload: async (fingerprint, upload) => {
    const { urlStorageKey: _unused, ...kept } = upload;
    write([
      ...read().filter((record) => record.upload.uploadUrl !== upload.uploadUrl),
      { fingerprint, upload: kept },
    ]);
    return upload.uploadUrl ?? '';
  },
  clear: () => write([]),
};
