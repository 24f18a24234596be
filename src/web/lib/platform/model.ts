import type { AssetableType, Role } from '../../../shared/api/assetable';
import type { Crop } from '../../../shared/assets/crop';

/**
 * The app's own picture of what the platform holds. Pages and features see only these; the wire
 * shapes (which differ between platforms where the spec is silent) stay inside lib/platform.
 */

export interface EntityRef {
  type: AssetableType;
  id: number;
}

/** A file stored on the platform (an Asset of the spec). */
export interface StoredFile {
  id: number;
  name: string;
  fileType: string;
  entity: EntityRef;
  private: boolean;
  meta: Record<string, unknown>;
  /** `meta.crop`, when it is a usable crop. */
  crop?: Crop;
  /** The thumbnail file's id (a PDF's cover page), when the platform made one. */
  thumbnailId?: number;
  /** What the platform added beyond the spec, when it did. */
  contentType?: string;
  size?: number;
  width?: number;
  height?: number;
  uploadedAt?: string;
  /** Changes whenever what the file looks like changes, so no stale preview is shown. */
  version: string;
  /** The platform's ETag of the file, when it gave one: sent back as If-Match on changes. */
  etag?: string;
}

/** An entity's files: `null` when the platform does not list them (the spec does not require it). */
export interface EntityFiles {
  ref: EntityRef;
  /** The entity's name, when the platform said it. */
  name?: string;
  files: StoredFile[] | null;
  /**
   * The platform has more of its files than `files` (ours pages them): `platform.moreFiles` with this
   * reads the next page. Absent where the list is whole, as on a platform that implements the spec.
   */
  next?: string;
  /** An accreditation's review, when the platform tells its owner (ours does). */
  review?: Review;
  /** Entities it leads to: a product's investments and team members, the product of either. */
  related?: { type: AssetableType; id: number; name: string }[];
}

export type ReviewStatus = 'pending' | 'approved' | 'rejected';

export interface Review {
  status: ReviewStatus;
  note?: string;
  decidedAt?: string;
  decidedBy?: string;
}

/** One entry of an accreditation's history: a decision, or a change to one of its files. */
export interface HistoryEntry {
  id: number;
  at: string;
  action: string;
  actor: { name: string; role?: Role };
  note?: string;
  file?: { name: string; previousName?: string; fileType?: string };
}

/** A page of a longer list; `next` asks for the following one. */
export interface Page<T> {
  items: T[];
  next?: string;
}

export interface Offering {
  id: number;
  name: string;
  /** The product's logo file, when it has one the person may see. */
  logoId?: number;
}

export interface Account {
  user: { id: number; name: string; email: string; role: Role };
  /** `review`: where an accreditation's review stands, when the platform says so in this list (ours). */
  entities: { type: AssetableType; id: number; name: string; review?: ReviewStatus }[];
}

export interface AccreditationForReview {
  id: number;
  name: string;
  owner: { name: string; email: string };
  files: StoredFile[];
  review?: Review;
  /** The accreditation's ETag, sent back as If-Match with a decision. */
  etag?: string;
}

export type Variant = 'original' | 'cropped' | 'preview';

/** A signed, short-lived address of a file; `rendered` when it is the variant asked for, not the original. */
export interface FileAddress {
  url: string;
  rendered: boolean;
}

export type FileChanges = Partial<Pick<StoredFile, 'name' | 'private' | 'meta'>>;

export interface NewFile {
  fileType: string;
  entity: EntityRef;
  /** Wanted: the app makes sure of it after the upload when the platform ignores it at create. */
  private: boolean;
  meta: Record<string, unknown>;
  file: File;
}

export interface UploadOptions {
  /** The same key for every attempt of one upload: a platform that honours it makes one file at most. */
  idempotencyKey: string;
  /** Bytes sent so far; the last call (sent = total) means the platform is now processing. */
  onProgress: (sent: number, total: number) => void;
  signal: AbortSignal;
}

export interface Uploaded {
  file: StoredFile;
  /** The file should be private, the platform left it visible, and making it private failed. */
  privacyNotApplied: boolean;
}
