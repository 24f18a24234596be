import type { QualityIssue } from '../../../shared/assets/photo-quality';
import type { AssetableType, Role } from '../../../shared/api/assetable';
import type { LicenceSide, RejectionReason, RequirementKind } from '../../../shared/api/review';
import type { Crop } from '../../../shared/assets/crop';

export type { LicenceSide, RejectionReason, RequirementKind };

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
  /**
   * What our platform's photo check found on a licence or bill photo (issue 31): "blurry", "glare"…
   * Absent where the platform does not check, or the photo was not checked; empty when it is fine.
   */
  qualityIssues?: QualityIssue[];
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

/**
 * `documents_needed` only where the platform says what an accreditation needs (ours): until then it
 * is not in the queue.
 */
export type ReviewStatus = 'documents_needed' | 'pending' | 'approved' | 'rejected';

/** One thing an accreditation needs before it can be sent for review, met or not (ours). */
export interface Requirement {
  kind: RequirementKind;
  /** Files of any of these types meet it (a letter: one of two kinds). */
  fileTypes: string[];
  minFiles: number;
  met: boolean;
}

/** A decision as recorded, with the files it was made on (kept as evidence: not deletable). */
export interface Decision {
  status: 'approved' | 'rejected';
  reason?: RejectionReason;
  note?: string;
  at?: string;
  by?: string;
  fileIds: number[];
}

export interface Review {
  status: ReviewStatus;
  note?: string;
  decidedAt?: string;
  decidedBy?: string;
  /** Why it was rejected (ours), with the current decision. */
  reason?: RejectionReason;
  /** The newest decision whatever the status now (ours): why, and on which files. */
  lastDecision?: Decision;
  /** When its owner last sent it for review ("waiting since"). */
  submittedAt?: string;
  /**
   * What it needs before it can be sent for review (ours). Absent on a platform that does not say:
   * the app then shows no checklist and no "Send for review", as before.
   */
  requirements?: Requirement[];
  /** The owner's answer: whether the driver's licence shows the current address (ours). */
  addressOnLicence?: boolean;
  /** The accreditation's ETag, sent back as If-Match with a decision or a send. */
  etag?: string;
}

/** `GET …/accreditations` counts per status over all accreditations (ours), for the queue's tabs. */
export interface ReviewCounts {
  waiting: number;
  decided: number;
  documentsNeeded: number;
}

/** A page of the review queue, with the counts where the platform gives them. */
export interface ReviewPage extends Page<AccreditationForReview> {
  counts?: ReviewCounts;
}

/** One entry of an accreditation's history: a decision, or a change to one of its files. */
export interface HistoryEntry {
  id: number;
  at: string;
  action: string;
  actor: { name: string; role?: Role };
  note?: string;
  /** A rejection's reason. */
  reason?: RejectionReason;
  /** A decision's evidence: the files it was made on, as they were (ours). */
  files?: { id: number; name: string; sha256: string; fileType: string; qualityIssues?: QualityIssue[] }[];
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
  /**
   * Aborting it cancels the upload. Aborting it with `pauseReason` pauses a resumable upload instead:
   * what arrived stays at the platform, and the same file sent again continues from there.
   */
  signal: AbortSignal;
  /** A resumable upload lost its connection and will try again by itself, after a growing wait. */
  onReconnecting?: () => void;
  /** A resumable upload has its address at the platform: the id to discard it by (`discardUpload`). */
  onResumable?: (id: string) => void;
}

/** The abort reason that pauses a resumable upload rather than cancelling it (UploadOptions.signal). */
export const pauseReason = 'pause';

/**
 * A resumable upload this browser started and did not finish (a reload, a closed tab, a pause): the
 * same file chosen again for the same slot continues it.
 */
export interface UnfinishedUpload {
  /** What `discardUpload` takes. */
  id: string;
  name: string;
  size: number;
  /** Bytes the platform holds; null when it could not be asked just now. */
  sent: number | null;
  startedAt: Date;
}

export interface Uploaded {
  file: StoredFile;
  /** The file should be private, the platform left it visible, and making it private failed. */
  privacyNotApplied: boolean;
}
