import { assetableTypes, roles, type AssetableType } from '../../../shared/api/assetable';
import { accreditationStatuses, rejectionReasons, requirementKinds } from '../../../shared/api/review';
import { cropOf } from '../../../shared/assets/crop';
import { qualityIssues, type QualityIssue } from '../../../shared/assets/photo-quality';
import type {
  Account,
  AccreditationForReview,
  Decision,
  EntityRef,
  HistoryEntry,
  Offering,
  Requirement,
  Review,
  ReviewCounts,
  StoredFile,
} from './model';

/**
 * Reads what platforms answer, leniently: the spec shows the Asset's fields but not the shapes around
 * them (sideloads, links, lists), and other platforms add or leave out fields. Anything unreadable is
 * skipped rather than breaking a whole page.
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const integer = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) ? number : undefined;
};
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * A crop whose numbers came as strings (a multipart form has no numbers; a Rails-like platform keeps
 * `meta[crop][x]=10` as "10") is the same crop.
 */
function cropFrom(meta: Json) {
  const raw = meta.crop;
  if (!isObject(raw)) return undefined;
  const numeric = Object.fromEntries(
    Object.entries(raw).map(([key, value]) => [key, integer(value) ?? value]),
  );
  return cropOf({ crop: numeric });
}

/** One Asset (spec 2.2), from a platform's answer. */
export function readFile(raw: unknown, etag?: string): StoredFile | undefined {
  if (!isObject(raw)) return undefined;
  const id = integer(raw.id);
  const assetable = isObject(raw.assetable) ? raw.assetable : {};
  const type = assetableTypes.find((t) => t === assetable.type);
  const entityId = integer(assetable.id);
  if (id === undefined || !type || entityId === undefined) return undefined;
  const meta = isObject(raw.meta) ? raw.meta : {};
  const crop = cropFrom(meta);
  const updatedAt = text(raw.updated_at);
  return {
    id,
    name: text(raw.name) ?? `File ${id}`,
    fileType: text(raw.file_type) ?? '',
    entity: { type, id: entityId },
    private: raw.private === true,
    meta,
    ...(crop ? { crop } : {}),
    ...optional('thumbnailId', integer(raw.thumbnail_id)),
    ...optional('contentType', text(raw.content_type)),
    ...optional('size', integer(raw.size)),
    ...optional('width', integer(raw.width)),
    ...optional('height', integer(raw.height)),
    ...optional('uploadedAt', text(raw.created_at)),
    // The ETag header of a single read, or the `etag` field our platform puts in lists too.
    ...optional('etag', etag ?? text(raw.etag)),
    ...optional('qualityIssues', issuesFrom(raw.quality)),
    // Without an update time, the crop is what decides how the file looks.
    version: updatedAt ?? JSON.stringify(crop ?? null),
  };
}

/** Our platform's `quality.issues` (issue 31), the names this app knows; undefined without one. */
function issuesFrom(quality: unknown): QualityIssue[] | undefined {
  if (!isObject(quality) || !Array.isArray(quality.issues)) return undefined;
  return qualityIssues.filter((issue) => (quality.issues as unknown[]).includes(issue));
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** `{"asset": {...}}` (spec 4.4), or the bare object. */
export function readFileAnswer(body: unknown, etag?: string): StoredFile | undefined {
  return readFile(isObject(body) && isObject(body.asset) ? body.asset : body, etag);
}

/** A list of Assets: a bare array, or `{"assets": [...]}`. */
export function readFileList(body: unknown): StoredFile[] | undefined {
  const list = Array.isArray(body)
    ? body
    : isObject(body) && Array.isArray(body.assets)
      ? body.assets
      : undefined;
  return list?.map((raw) => readFile(raw)).filter((file): file is StoredFile => file !== undefined);
}

/**
 * A list of Assets and, where the platform pages it (ours: `next_cursor` beside `assets`), the cursor
 * of the next page. No cursor: the list is whole, as the spec's lists are.
 */
export function readFilePage(body: unknown): { files: StoredFile[]; cursor?: string } | undefined {
  const files = readFileList(body);
  if (!files) return undefined;
  return { files, ...optional('cursor', isObject(body) ? text(body.next_cursor) || undefined : undefined) };
}

/**
 * An accreditation's review, where the platform says it (ours: `status`, `review_note`, …). What a
 * platform leaves out (requirements, the last decision, …) stays out: the app then does as before.
 */
const reviewStatuses = accreditationStatuses;

const reasonOf = (value: unknown) => rejectionReasons.find((r) => r === value);

function readRequirement(raw: unknown): Requirement | undefined {
  if (!isObject(raw)) return undefined;
  const kind = requirementKinds.find((k) => k === raw.kind);
  if (!kind || typeof raw.met !== 'boolean') return undefined;
  const fileTypes = Array.isArray(raw.file_types) ? raw.file_types.filter((t) => typeof t === 'string') : [];
  return { kind, fileTypes, minFiles: integer(raw.min_files) ?? 1, met: raw.met };
}

function readDecision(raw: unknown): Decision | undefined {
  if (!isObject(raw)) return undefined;
  const status = (['approved', 'rejected'] as const).find((s) => s === raw.status);
  if (!status) return undefined;
  const fileIds = (Array.isArray(raw.file_ids) ? raw.file_ids : [])
    .map(integer)
    .filter((id): id is number => id !== undefined);
  return {
    status,
    fileIds,
    ...optional('reason', reasonOf(raw.reason)),
    ...optional('note', text(raw.note) || undefined),
    ...optional('at', text(raw.at)),
    ...optional('by', isObject(raw.by) ? text(raw.by.name) : undefined),
  };
}

export function readReview(raw: Json): Review | undefined {
  const status = reviewStatuses.find((s) => s === raw.status);
  if (!status) return undefined;
  const decidedBy = isObject(raw.reviewed_by) ? text(raw.reviewed_by.name) : undefined;
  const requirements = Array.isArray(raw.requirements)
    ? raw.requirements.map(readRequirement).filter((r): r is Requirement => r !== undefined)
    : undefined;
  return {
    status,
    ...optional('note', text(raw.review_note) || undefined),
    ...optional('decidedAt', text(raw.reviewed_at)),
    ...optional('decidedBy', decidedBy),
    ...optional('reason', reasonOf(raw.review_reason)),
    ...optional('lastDecision', readDecision(raw.last_decision)),
    ...optional('submittedAt', text(raw.submitted_at)),
    ...optional('requirements', requirements),
    ...optional(
      'addressOnLicence',
      typeof raw.address_on_licence === 'boolean' ? raw.address_on_licence : undefined,
    ),
    ...optional('etag', text(raw.etag)),
  };
}

/** The queue's counts per status (ours); undefined where the list carries none. */
export function readReviewCounts(body: unknown): ReviewCounts | undefined {
  const counts = isObject(body) && isObject(body.counts) ? body.counts : undefined;
  if (!counts) return undefined;
  const count = (status: string) => integer(counts[status]) ?? 0;
  return {
    waiting: count('pending'),
    decided: count('approved') + count('rejected'),
    documentsNeeded: count('documents_needed'),
  };
}

/** Named links to other entities: `investments`, `team_members` (a product's), `product` (theirs). */
function readRelated(entity: Json) {
  const named = (type: AssetableType, value: unknown) =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((raw: unknown) => {
      const id = isObject(raw) ? integer(raw.id) : undefined;
      return isObject(raw) && id !== undefined ? [{ type, id, name: text(raw.name) ?? `${type} ${id}` }] : [];
    });
  const related = [
    ...named('Product', entity.product),
    ...named('Investment', entity.investments),
    ...named('TeamMember', entity.team_members),
  ];
  return related.length > 0 ? { related } : {};
}

/**
 * Where an entity answer keeps its files, of the shapes the spec allows ("not shown"): the files
 * themselves (with the cursor of the next page where they are only the first, ours), or only the
 * address of their list. `filesAt` is that address whenever the answer gives it.
 */
export type EntityAnswer = { name?: string; review?: Review; related?: EntityFilesRelated } & (
  { files: StoredFile[]; cursor?: string; filesAt?: string } | { filesAt: string } | { files: null }
);
type EntityFilesRelated = { type: AssetableType; id: number; name: string }[];

/**
 * `GET /v2/core/<plural>/:id`: the entity under its singular key (or bare), with its Assets sideloaded
 * inside it, beside it at the top level (ours), or only a `links.assets` address.
 */
export function readEntity(body: unknown, ref: EntityRef, singular: string): EntityAnswer {
  if (!isObject(body)) return { files: null };
  // Under its singular key ("product"), or under the one object key a platform with other names used.
  const wrappers = Object.entries(body).filter(([key, value]) => key !== 'links' && isObject(value));
  const entity = isObject(body[singular])
    ? body[singular]
    : wrappers.length === 1 && !('id' in body)
      ? (wrappers[0]![1] as Json)
      : body;
  const about = {
    name: text(entity.name) ?? text(entity.title),
    ...(ref.type === 'Accreditation' ? optional('review', readReview(entity)) : {}),
    ...readRelated(entity),
  };
  const link = isObject(entity.links)
    ? text(entity.links.assets)
    : isObject(body.links)
      ? text(body.links.assets)
      : undefined;
  // The page travels with its cursor: inside the entity, or beside it at the top level (ours).
  const sideloaded = readFilePage(entity) ?? readFilePage(body) ?? readFilePage(body[`${singular}_assets`]);
  if (sideloaded) {
    const { files, cursor } = sideloaded;
    return {
      ...about,
      files: files.filter((f) => f.entity.type === ref.type && f.entity.id === ref.id),
      ...optional('cursor', cursor),
      ...optional('filesAt', link),
    };
  }
  return link ? { ...about, filesAt: link } : { ...about, files: null };
}

/** A page of one of our paged lists: the items under `key`, and `next_cursor`. */
export function readPage<T>(body: unknown, key: string, read: (raw: Json) => T | undefined) {
  const list = isObject(body) && Array.isArray(body[key]) ? (body[key] as unknown[]) : [];
  const items = list.flatMap((raw) => {
    const item = isObject(raw) ? read(raw) : undefined;
    return item === undefined ? [] : [item];
  });
  const next = isObject(body) ? text(body.next_cursor) : undefined;
  return { items, ...(next ? { next } : {}) };
}

/** A decision's files in its history entry: id, name, SHA-256, type (ours). */
function readEvidence(raw: unknown): HistoryEntry['files'] {
  if (!Array.isArray(raw)) return undefined;
  return raw.flatMap((item: unknown) => {
    const id = isObject(item) ? integer(item.id) : undefined;
    if (!isObject(item) || id === undefined) return [];
    return [
      {
        id,
        name: text(item.name) ?? `File ${id}`,
        sha256: text(item.sha256) ?? '',
        fileType: text(item.file_type) ?? '',
        // The photo check's flags the decision saw (issue 31; ours).
        ...optional('qualityIssues', issuesFrom({ issues: item.quality_issues })),
      },
    ];
  });
}

export function readHistoryEntry(raw: Json): HistoryEntry | undefined {
  const id = integer(raw.id);
  const at = text(raw.at);
  const action = text(raw.action);
  if (id === undefined || !at || !action) return undefined;
  const actor = isObject(raw.actor) ? raw.actor : {};
  const file = isObject(raw.file) ? raw.file : undefined;
  return {
    id,
    at,
    action,
    actor: {
      name: text(actor.name) ?? 'Someone',
      ...optional(
        'role',
        roles.find((r) => r === actor.role),
      ),
    },
    ...optional('note', text(raw.note) || undefined),
    ...optional('reason', reasonOf(raw.reason)),
    ...optional('files', readEvidence(raw.files)),
    ...(file
      ? {
          file: {
            name: text(file.name) ?? 'a file',
            ...optional('previousName', text(file.previous_name)),
            ...optional('fileType', text(file.file_type)),
          },
        }
      : {}),
  };
}

/** One accreditation of the review queue (ours): its owner, files, review and ETag. */
export function readAccreditation(raw: Json): AccreditationForReview | undefined {
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
}

export function readOffering(raw: Json): Offering | undefined {
  const id = integer(raw.id);
  if (id === undefined) return undefined;
  return { id, name: text(raw.name) ?? `Product ${id}`, ...optional('logoId', integer(raw.logo_asset_id)) };
}

/** `GET /v2/core/me` (ours): the user and what they own. */
export function readAccount(body: unknown): Account | undefined {
  if (!isObject(body) || !isObject(body.user)) return undefined;
  const { user } = body;
  const id = integer(user.id);
  const role = roles.find((r) => r === user.role);
  if (id === undefined || !role) return undefined;
  const entities = (Array.isArray(body.entities) ? body.entities : []).flatMap((raw: unknown) => {
    if (!isObject(raw)) return [];
    const type = assetableTypes.find((t) => t === raw.type);
    const entityId = integer(raw.id);
    if (!type || entityId === undefined) return [];
    // Ours adds an accreditation's review status; a platform without one (or with other words) shows none.
    const review = type === 'Accreditation' ? reviewStatuses.find((s) => s === raw.status) : undefined;
    return [
      { type, id: entityId, name: text(raw.name) ?? `${type} ${entityId}`, ...optional('review', review) },
    ];
  });
  return { user: { id, role, name: text(user.name) ?? '', email: text(user.email) ?? '' }, entities };
}

export const isAssetableType = (value: unknown): value is AssetableType =>
  assetableTypes.some((t) => t === value);
