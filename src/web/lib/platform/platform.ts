import type { AppConfig } from '../../../shared/api/app-config';
import { unfinishedUploads as unfinishedStore, type UnfinishedUploadStore } from '../unfinished-uploads';
import {
  loadHistory,
  loadReviewList,
  sendDecision,
  sendForReview,
  setAddressOnLicence,
} from './accreditations';
import { downloadAddress, fileAddress } from './addresses';
import type { CapabilityStore } from './capabilities';
import { loadAccount, loadEntityFiles, loadMoreFiles, loadOfferings } from './entities';
import { loadFile, removeFile, updateFile } from './file-changes';
import type { FirstResponses } from './first-responses';
import type { PlatformHttp } from './http';
import type {
  Account,
  EntityFiles,
  EntityRef,
  FileAddress,
  FileChanges,
  HistoryEntry,
  NewFile,
  Offering,
  Page,
  RejectionReason,
  ReviewPage,
  StoredFile,
  UnfinishedUpload,
  Uploaded,
  UploadOptions,
  Variant,
} from './model';
import { discardUpload, sendsResumably, unfinishedUploadsOf, uploadFile } from './new-files';
import type { PlatformContext } from './platform-context';

/**
 * Everything the app asks of the platform. Where platform-api.md is silent (how entities list their
 * files, `/me`, renditions, review) this adapter reads every shape it knows, learns what the platform
 * lacks, and answers the rest of the app in its own model (model.ts). Nothing outside lib/platform
 * sees a wire shape; pointing the app at another platform changes this folder at most.
 */
export interface Platform {
  readonly capabilities: CapabilityStore;
  /**
   * The signed-in user and what they own; null when the platform does not say (no `/me`). `first`: the
   * answers the page's start asked for (the first page's query takes its own from them).
   */
  account(first?: FirstResponses): Promise<Account | null>;
  /**
   * An entity's name and files, as far as the platform lists them. Where it pages them (ours), the
   * newest first, and `next` leads on; then the files of `newestOf`'s types (single-file slots) come
   * too: the newest file of each, even when it is further on than the first page. `first`: as for
   * `account`.
   */
  entityFiles(
    ref: EntityRef,
    options?: { newestOf?: readonly string[]; first?: FirstResponses },
  ): Promise<EntityFiles>;
  /** The page of an entity's files that an earlier one's `next` leads to. */
  moreFiles(ref: EntityRef, next: string): Promise<Page<StoredFile>>;
  /** One file; null when it is gone (or not the person's to see). */
  file(id: number): Promise<StoredFile | null>;
  /** Rename, privacy, crop. Null: the change was made, but the file could not be read back. */
  update(file: Pick<StoredFile, 'id' | 'etag'>, changes: FileChanges): Promise<StoredFile | null>;
  /** `keepalive`: sent as the page closes, and outlives it. */
  remove(file: Pick<StoredFile, 'id' | 'etag'>, options?: { keepalive?: boolean }): Promise<void>;
  /**
   * A signed address of the file; a rendition when the platform makes them and one is asked for.
   * Rejects with NotReadyYet while the file is still being made (a PDF's thumbnail after its upload).
   */
  address(id: number, want?: { variant: Variant; width?: number }): Promise<FileAddress>;
  /**
   * A signed address of the original for saving it: one the platform delivers as an attachment where
   * it can (ours: `disposition=attachment`, with the renditions' API description), `saves: false`
   * where it may show an image or a PDF in the tab instead.
   */
  downloadAddress(id: number): Promise<{ url: string; saves: boolean }>;
  /**
   * Sends a file: resumable (tus) where the platform offers it and the file is large enough to be
   * worth it (`resumes`), the spec's `POST` otherwise.
   */
  upload(file: NewFile, options: UploadOptions): Promise<Uploaded>;
  /** Whether this file would be sent resumably: it can then be paused, and continued after a reload. */
  resumes(file: File): boolean;
  /** This browser's unfinished resumable uploads of one slot; the same file chosen again continues one. */
  unfinishedUploads(entity: EntityRef, fileType: string): Promise<UnfinishedUpload[]>;
  /** Gives an unfinished resumable upload up, here and at the platform. */
  discardUpload(id: string): Promise<void>;
  /**
   * Admins: accreditations waiting for a decision (oldest first), or decided ones (newest decision
   * first); `search` narrows them to an owner's name or email where the platform can (ours), and
   * `counts` come where it gives them (ours).
   */
  reviewList(which: 'pending' | 'decided', cursor?: string, search?: string): Promise<ReviewPage>;
  /**
   * `keepalive`: sent as the page closes, and outlives it; `etag`: refused if decided meanwhile.
   * `reason`: why it is rejected, where the platform takes one (ours requires it).
   */
  review(
    id: number,
    decision: { status: 'approved' | 'rejected'; note: string; reason?: RejectionReason },
    options?: { keepalive?: boolean; etag?: string },
  ): Promise<void>;
  /**
   * The owner sends a complete accreditation for review (ours). Rejects with an ApiError whose
   * field errors name each unmet requirement (`requirements.<kind>`) when something is missing.
   */
  sendForReview(id: number, options?: { etag?: string }): Promise<void>;
  /** The owner says whether the driver's licence shows the current address (ours). */
  setAddressOnLicence(id: number, onLicence: boolean, options?: { etag?: string }): Promise<void>;
  /** An accreditation's decisions and file changes, newest first (its owner and admins). */
  history(accreditationId: number, cursor?: string): Promise<Page<HistoryEntry>>;
  /** The products (offerings) the person may read, newest first. */
  offerings(cursor?: string): Promise<Page<Offering>>;
}

/**
 * The adapter over one platform. Each call is a function of its own module, over one PlatformContext:
 * entities.ts (`/me`, an entity's files, offerings), file-changes.ts (read, update, delete one file),
 * addresses.ts (signed addresses), new-files.ts (uploads), accreditations.ts (review and history).
 */
export function createPlatform(
  config: AppConfig,
  http: PlatformHttp,
  capabilities: CapabilityStore,
  /** Where resumable uploads are remembered for a reload (cleared on sign-out: browser-memory.ts). */
  unfinished: UnfinishedUploadStore = unfinishedStore,
): Platform {
  const context: PlatformContext = { config, http, capabilities, unfinished };
  return {
    capabilities,
    account: (first) => loadAccount(context, first),
    entityFiles: (ref, options) => loadEntityFiles(context, ref, options),
    moreFiles: (ref, next) => loadMoreFiles(context, ref, next),
    file: (id) => loadFile(context, id),
    update: (target, changes) => updateFile(context, target, changes),
    remove: (target, options) => removeFile(context, target, options),
    address: (id, want) => fileAddress(context, id, want),
    downloadAddress: (id) => downloadAddress(context, id),
    upload: (newFile, options) => uploadFile(context, newFile, options),
    resumes: (file) => sendsResumably(context, file),
    unfinishedUploads: (entity, fileType) => unfinishedUploadsOf(context, entity, fileType),
    discardUpload: (id) => discardUpload(context, id),
    reviewList: (which, cursor, search) => loadReviewList(context, which, cursor, search),
    review: (id, decision, options) => sendDecision(context, id, decision, options),
    sendForReview: (id, options) => sendForReview(context, id, options),
    setAddressOnLicence: (id, onLicence, options) => setAddressOnLicence(context, id, onLicence, options),
    history: (accreditationId, cursor) => loadHistory(context, accreditationId, cursor),
    offerings: (cursor) => loadOfferings(context, cursor),
  };
}
