import type { AppConfig } from '../../../shared/api/app-config';
import { entityPaths } from '../../../shared/api/entities';
import type { CapabilityStore } from './capabilities';
import { ApiError, NotOffered, NotReadyYet } from './errors';
import type { PlatformHttp } from './http';
import type {
  Account,
  AccreditationForReview,
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
import {
  readAccount,
  readEntity,
  readFile,
  readFileAnswer,
  readFilePage,
  readHistoryEntry,
  readOffering,
  readPage,
  readReview,
  readReviewCounts,
} from './read-shapes';
import { resumableFromBytes } from '../../../shared/api/resumable-uploads';
import { unfinishedUploads as unfinishedStore, type UnfinishedUploadStore } from '../unfinished-uploads';
import { sendUpload, uploadForm } from './upload';

/**
 * Everything the app asks of the platform. Where platform-api.md is silent (how entities list their
 * files, `/me`, renditions, review) this adapter reads every shape it knows, learns what the platform
 * lacks, and answers the rest of the app in its own model (model.ts). Nothing outside lib/platform
 * sees a wire shape; pointing the app at another platform changes this folder at most.
 */
export interface Platform {
  readonly capabilities: CapabilityStore;
  /** The signed-in user and what they own; null when the platform does not say (no `/me`). */
  account(): Promise<Account | null>;
  /**
   * An entity's name and files, as far as the platform lists them. Where it pages them (ours), the
   * newest first, and `next` leads on; then the files of `newestOf`'s types (single-file slots) come
   * too: the newest file of each, even when it is further on than the first page.
   */
  entityFiles(ref: EntityRef, options?: { newestOf?: readonly string[] }): Promise<EntityFiles>;
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

/** `Retry-After` in seconds (the only form our platform sends), as milliseconds; a second when absent. */
function retryAfterMs(response: Response): number {
  const seconds = Number(response.headers.get('Retry-After'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 300) * 1000 : 1000;
}

/** A link of the platform with these query parameters set; absolute or a path, as it came. */
function withQuery(link: string, parameters: Record<string, string>): string {
  const absolute = /^https?:\/\//i.test(link);
  const url = new URL(link, 'http://relative.invalid');
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return absolute ? url.href : `${url.pathname}${url.search}`;
}

/** 404 or 405 on an endpoint beyond the spec: the platform does not have it. */
const absent = (response: Response) => response.status === 404 || response.status === 405;

async function failure(response: Response): Promise<never> {
  throw await ApiError.fromResponse(response);
}

async function json(response: Response): Promise<unknown> {
  if (!response.ok) return failure(response);
  if (response.status === 204) return undefined;
  return response.json().catch(() => undefined);
}

export function createPlatform(
  config: AppConfig,
  http: PlatformHttp,
  capabilities: CapabilityStore,
  /** Where resumable uploads are remembered for a reload (cleared on sign-out: browser-memory.ts). */
  unfinished: UnfinishedUploadStore = unfinishedStore,
): Platform {
  const can = () => capabilities.current;

  async function account(): Promise<Account | null> {
    if (can().me === false) return null;
    const response = await http.send('/v2/core/me');
    if (absent(response)) {
      capabilities.learn({ me: false });
      return null;
    }
    const found = readAccount(await json(response));
    capabilities.learn({ me: found !== undefined });
    return found ?? null;
  }

  async function entityFiles(
    ref: EntityRef,
    options: { newestOf?: readonly string[] } = {},
  ): Promise<EntityFiles> {
    const template = config.entityPaths[ref.type];
    if (!template || can().entityReads === false) return { ref, files: null };
    const response = await http.send(template.replace(':id', String(ref.id)));
    // Where the platform is known to read entities, a 404 is this entity's: not there, or not yours.
    if (absent(response) && can().entityReads !== true) {
      if (response.status === 405) capabilities.learn({ entityReads: false });
      return { ref, files: null };
    }
    const answer = readEntity(await json(response), ref, entityPaths[ref.type].singular);
    capabilities.learn({ entityReads: true });
    const { name, review, related } = answer;
    const about = { ref, name, ...(review ? { review } : {}), ...(related ? { related } : {}) };
    if ('files' in answer && answer.files === null) return { ...about, files: null };
    const page = 'files' in answer ? answer : await filePage(ref, answer.filesAt);
    if (!page) return { ...about, files: null };
    const listAt = 'filesAt' in answer ? answer.filesAt : undefined;
    // A cursor without the list's address cannot be followed: the first page is all there is to show.
    if (!page.cursor || !listAt) return { ...about, files: page.files };
    const newest = await newestOfTypes(ref, listAt, page.files, options.newestOf ?? []);
    return { ...about, files: [...page.files, ...newest], next: withQuery(listAt, { cursor: page.cursor }) };
  }

  /** One page of a list of files at `link`, only the files of `ref` (a lenient reading). */
  async function filePage(ref: EntityRef, link: string) {
    const page = readFilePage(await json(await http.send(link)));
    return (
      page && {
        ...page,
        files: page.files.filter((f) => f.entity.type === ref.type && f.entity.id === ref.id),
      }
    );
  }

  async function moreFiles(ref: EntityRef, next: string): Promise<Page<StoredFile>> {
    const page = await filePage(ref, next);
    if (!page) throw new Error('The platform’s next page of files could not be read.');
    return { items: page.files, ...(page.cursor ? { next: withQuery(next, { cursor: page.cursor }) } : {}) };
  }

  /**
   * For each of `fileTypes` without a file on the first page, the newest file of that type (ours:
   * `?file_type=…&limit=1`). A platform that ignores the filter answers other types, which are left
   * out: its slot then shows what the pages hold.
   */
  async function newestOfTypes(
    ref: EntityRef,
    listAt: string,
    first: StoredFile[],
    fileTypes: readonly string[],
  ) {
    const missing = fileTypes.filter((type) => !first.some((f) => f.fileType === type));
    const found = await Promise.all(
      missing.map(async (fileType) => {
        const page = await filePage(ref, withQuery(listAt, { file_type: fileType, limit: '1' }));
        return page?.files.find((f) => f.fileType === fileType);
      }),
    );
    return found.filter((file): file is StoredFile => file !== undefined);
  }

  async function file(id: number): Promise<StoredFile | null> {
    const response = await http.send(`/v2/core/assets/${id}`);
    if (response.status === 404) return null;
    return readFileAnswer(await json(response), response.headers.get('ETag') ?? undefined) ?? null;
  }

  /** If-Match where the platform gave an ETag and the header may be sent: a 412 then says "changed elsewhere". */
  const ifMatch = (target: Pick<StoredFile, 'etag'>): Record<string, string> =>
    target.etag && can().ifMatch ? { 'If-Match': target.etag } : {};

  async function update(target: Pick<StoredFile, 'id' | 'etag'>, changes: FileChanges) {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...ifMatch(target) };
    const response = await http.send(`/v2/core/assets/${target.id}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ asset: changes }),
    });
    const answer = readFileAnswer(await json(response), response.headers.get('ETag') ?? undefined);
    // The spec shows no answer to an update: 204, or 200 with something else, means read it back (C2).
    return answer ?? (await file(target.id).catch(() => null));
  }

  async function remove(target: Pick<StoredFile, 'id' | 'etag'>, options: { keepalive?: boolean } = {}) {
    const init: RequestInit = { method: 'DELETE', headers: ifMatch(target) };
    if (options.keepalive) init.keepalive = true;
    await json(await http.send(`/v2/core/assets/${target.id}`, init));
  }

  async function address(id: number, want?: { variant: Variant; width?: number }): Promise<FileAddress> {
    const rendition = want !== undefined && want.variant !== 'original' && can().renditions === true;
    const query = new URLSearchParams();
    if (rendition) {
      query.set('variant', want.variant);
      if (want.width !== undefined) query.set('width', String(want.width));
    }
    const path = `/v2/core/assets/${id}/download_url${rendition ? `?${query}` : ''}`;
    const response = await http.send(path);
    if (response.status === 409) {
      const error = await ApiError.fromResponse(response.clone());
      if (error.code === 'thumbnail_pending') throw new NotReadyYet(retryAfterMs(response));
    }
    const body = (await json(response)) as { url?: unknown } | undefined;
    if (typeof body?.url !== 'string') throw new Error('The platform gave no address for this file.');
    return { url: body.url, rendered: rendition || want === undefined || want.variant === 'original' };
  }

  async function downloadAddress(id: number) {
    // Asked only of a platform known to extend download_url (a spec-only one may refuse a parameter).
    const extended = can().renditions === true;
    const path = `/v2/core/assets/${id}/download_url${extended ? '?disposition=attachment' : ''}`;
    const body = (await json(await http.send(path))) as { url?: unknown } | undefined;
    if (typeof body?.url !== 'string') throw new Error('The platform gave no address for this file.');
    // The platform says so in the signed URL itself; one that ignored the parameter left it out.
    const saves = new URL(body.url).searchParams.get('disposition') === 'attachment';
    return { url: body.url, saves };
  }

  // Only where the proxy found the tus endpoint: a platform without it (the spec's) never sees a tus request.
  const resumes = (file: File) => can().resumableUploads === true && file.size >= resumableFromBytes;
  // Loaded with tus-js-client only where it is used: the first page stays small (e2e/bundle-size.spec.ts).
  const resumable = () => import('./resumable-upload');

  async function upload(newFile: NewFile, options: UploadOptions): Promise<Uploaded> {
    const answer = resumes(newFile.file)
      ? await (await resumable()).sendResumable(http, newFile, options, unfinished)
      : await sendUpload(http, uploadForm(newFile), {
          ...options,
          sendIdempotencyKey: can().idempotencyKey === true,
        });
    if (answer.status < 200 || answer.status >= 300)
      return failure(new Response(answer.body, { status: answer.status }));
    let stored: StoredFile | undefined;
    try {
      stored = readFileAnswer(JSON.parse(answer.body) as unknown, answer.etag);
    } catch {
      stored = undefined;
    }
    if (!stored)
      throw new Error(
        'The file was sent, but the platform’s answer could not be read. Reload the page to see it.',
      );
    if (!newFile.private || stored.private) return { file: stored, privacyNotApplied: false };
    // The spec's create has no `private`: a platform that ignored it gets the spec's own update at once (C3).
    try {
      const made = await update(stored, { private: true });
      return { file: made ?? { ...stored, private: true }, privacyNotApplied: false };
    } catch {
      return { file: stored, privacyNotApplied: true };
    }
  }

  /**
   * One of our extensions' paged lists; a 404 or 405 means the platform has no such list (where it is
   * not known to have one), said as "this platform does not offer …", never as a lack of access.
   */
  async function extensionPage<T>(
    capability: 'review' | 'reviewHistory' | 'offerings',
    feature: string,
    path: string,
    cursor: string | undefined,
    read: (body: unknown) => Page<T>,
  ): Promise<Page<T>> {
    if (can()[capability] === false) throw new NotOffered(feature);
    const query = new URLSearchParams(path.includes('?') ? path.slice(path.indexOf('?') + 1) : '');
    if (cursor) query.set('cursor', cursor);
    const base = path.split('?')[0];
    const response = await http.send(`${base}${query.size > 0 ? `?${query}` : ''}`);
    if (absent(response) && can()[capability] !== true) {
      capabilities.learn({ [capability]: false });
      throw new NotOffered(feature);
    }
    const page = read(await json(response));
    capabilities.learn({ [capability]: true });
    return page;
  }

  const readAccreditation = (raw: Record<string, unknown>): AccreditationForReview | undefined => {
    if (typeof raw.id !== 'number') return undefined;
    const owner = (raw.owner ?? {}) as { name?: unknown; email?: unknown };
    const review = readReview(raw);
    return {
      id: raw.id,
      name: typeof raw.name === 'string' ? raw.name : `Accreditation ${raw.id}`,
      owner: { name: String(owner.name ?? ''), email: String(owner.email ?? '') },
      files: (Array.isArray(raw.assets) ? raw.assets : [])
        .map((asset) => readFile(asset))
        .filter((f): f is StoredFile => f !== undefined),
      ...(review ? { review } : {}),
      ...(typeof raw.etag === 'string' ? { etag: raw.etag } : {}),
    };
  };

  const reviewList = async (
    which: 'pending' | 'decided',
    cursor?: string,
    search?: string,
  ): Promise<ReviewPage> => {
    const query = new URLSearchParams({ status: which });
    if (search) query.set('q', search);
    let counts: ReviewPage['counts'];
    const page = await extensionPage(
      'review',
      'a review queue',
      `/v2/core/accreditations?${query}`,
      cursor,
      (body) => {
        counts = readReviewCounts(body);
        return readPage(body, 'accreditations', readAccreditation);
      },
    );
    return counts ? { ...page, counts } : page;
  };

  const history = (accreditationId: number, cursor?: string) =>
    extensionPage(
      'reviewHistory',
      'a history of decisions',
      `/v2/core/accreditations/${accreditationId}/history`,
      cursor,
      (body) => readPage(body, 'history', readHistoryEntry),
    );

  const offerings = (cursor?: string) =>
    extensionPage('offerings', 'a list of offerings', '/v2/core/products', cursor, (body) =>
      readPage(body, 'products', readOffering),
    );

  /** A change to an accreditation (ours): a decision, a send for review, the address answer. */
  async function changeAccreditation(
    id: number,
    accreditation: Record<string, unknown>,
    options: { keepalive?: boolean; etag?: string },
  ) {
    const init: RequestInit = {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', ...ifMatch(options) },
      body: JSON.stringify({ accreditation }),
    };
    if (options.keepalive) init.keepalive = true;
    await json(await http.send(`/v2/core/accreditations/${id}`, init));
  }

  const review = (
    id: number,
    decision: { status: 'approved' | 'rejected'; note: string; reason?: RejectionReason },
    options: { keepalive?: boolean; etag?: string } = {},
  ) =>
    changeAccreditation(
      id,
      {
        status: decision.status,
        ...(decision.reason && decision.status === 'rejected' ? { reason: decision.reason } : {}),
        ...(decision.note ? { note: decision.note } : {}),
      },
      options,
    );

  const sendForReview = (id: number, options: { etag?: string } = {}) =>
    changeAccreditation(id, { status: 'pending' }, options);

  const setAddressOnLicence = (id: number, onLicence: boolean, options: { etag?: string } = {}) =>
    changeAccreditation(id, { address_on_licence: onLicence }, options);

  return {
    capabilities,
    account,
    entityFiles,
    moreFiles,
    file,
    update,
    remove,
    address,
    downloadAddress,
    upload,
    resumes,
    unfinishedUploads: async (entity, fileType) =>
      can().resumableUploads === true && (await unfinished.findAllUploads()).length > 0
        ? (await resumable()).unfinishedUploads(http, unfinished, entity, fileType)
        : [],
    discardUpload: async (id) => (await resumable()).discard(http, unfinished, id),
    reviewList,
    review,
    sendForReview,
    setAddressOnLicence,
    history,
    offerings,
  };
}
