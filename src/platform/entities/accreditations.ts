import { createHash } from 'node:crypto';
import type { AccreditationUpdate, ApiAccreditation, ApiDecision } from '../../shared/api/accreditations';
import { entityPath } from '../../shared/api/entities';
import type { AccreditationListStatus, RejectionReason } from '../../shared/api/review';
import type { PhotoQuality } from '../../shared/assets/photo-quality';
import type { DB } from '../db/database';
import {
  type AccreditationViewRow,
  accreditationCounts,
  accreditationFiles,
  accreditationPageRows,
  accreditationViewRow,
  appendHistory,
  appendHistoryEntry,
  decisionFileRows,
  insertAccreditation,
  insertDecisionFiles,
  lastDecisionRows,
  lockedAccreditationReviewState,
  recordAddressOnLicence,
  recordDecision,
  recordSubmission,
  reopenIfDecided,
} from '../db/repositories/entities';
import { ApiError, validationFailed } from '../http/errors';
import { pageOf, type Page } from '../http/paging';
import { checkIfMatch } from '../http/preconditions';
import { accreditationRequirements } from './requirements';

/** The review state an accreditation's ETag names: a decision, a send or a reopening bumps its version. */
export const accreditationEtag = (row: { id: number; version: number }) =>
  `"accreditation.${row.id}.${row.version}"`;

const isoTime = (ms: number) => new Date(ms).toISOString();

/**
 * Accreditations as the API answers them, each with what it still needs (from its files) and its
 * newest decision (from its history), read for all of them at once.
 */
async function toApiAccreditations(db: DB, rows: AccreditationViewRow[]): Promise<ApiAccreditation[]> {
  const ids = rows.map((row) => row.id);
  const [files, decisions] = await Promise.all([accreditationFiles(db, ids), lastDecisionRows(db, ids)]);
  const decisionFiles = await decisionFileRows(
    db,
    decisions.map((d) => d.id),
  );
  return rows.map((row) => {
    const own = files.filter((file) => file.assetable_id === row.id);
    const decision = decisions.find((d) => d.accreditation_id === row.id);
    const path = entityPath('Accreditation', row.id);
    return {
      id: row.id,
      name: row.name,
      status: row.status,
      review_note: row.review_note,
      review_reason: row.review_reason,
      reviewed_at: row.reviewed_at === null ? null : isoTime(row.reviewed_at),
      reviewed_by: row.reviewer_id === null ? null : { id: row.reviewer_id, name: row.reviewer_name! },
      last_decision: decision
        ? {
            status: decision.action as ApiDecision['status'],
            reason: decision.reason ?? null,
            note: decision.note,
            at: isoTime(decision.at),
            by: { id: decision.actor_id, name: decision.actor_name },
            history_id: decision.id,
            file_ids: decisionFiles.filter((f) => f.history_id === decision.id).map((f) => f.asset_id),
          }
        : null,
      submitted_at: row.submitted_at === null ? null : isoTime(row.submitted_at),
      address_on_licence: row.address_on_licence === 1,
      requirements: accreditationRequirements(
        row.address_on_licence === 1,
        own.map((file) => ({
          file_type: file.file_type,
          meta: JSON.parse(file.meta) as Record<string, unknown>,
        })),
      ),
      owner: { id: row.owner_id, name: row.owner_name, email: row.owner_email },
      etag: accreditationEtag(row),
      links: { assets: `${path}/assets`, history: `${path}/history` },
    };
  });
}

/** An accreditation with its review state, owner and reviewer; it must exist. */
export async function accreditationView(db: DB, id: number): Promise<ApiAccreditation> {
  const [accreditation] = await toApiAccreditations(db, [await accreditationViewRow(db, id)]);
  return accreditation!;
}

/** A new investor's accreditation, waiting for their documents and then an admin's decision. */
export async function openAccreditation(
  db: DB,
  owner: { id: number; name: string },
  now = Date.now(),
): Promise<{ id: number; name: string }> {
  const name = `Accreditation of ${owner.name}`;
  const id = await insertAccreditation(db, { ownerId: owner.id, name, createdAt: now });
  return { id, name };
}

/**
 * The name of one of the admins' lists in its cursors: a cursor of another status, or of another
 * search, is refused. The search is hashed: a cursor must stay short, and `q` may not be.
 */
export const accreditationList = (status: AccreditationListStatus, q?: string) =>
  `accreditations:${status}${q ? `:${createHash('sha256').update(q).digest('base64url').slice(0, 16)}` : ''}`;

/**
 * One page of the admins' list (orders: `accreditationPageRows`), and how many accreditations
 * there are in each status. Keyset paging: items added while someone pages never shift a page, and
 * one that moves meanwhile (decided again, reopened) may be missed by that pass but is never shown
 * twice.
 */
export async function accreditationPage(
  db: DB,
  status: AccreditationListStatus,
  page: { after?: number[]; limit: number; q?: string },
): Promise<Page<ApiAccreditation> & { counts: Awaited<ReturnType<typeof accreditationCounts>> }> {
  const [rows, counts] = await Promise.all([
    accreditationPageRows(db, status, page),
    accreditationCounts(db),
  ]);
  const { items, nextCursor } = pageOf(rows, page.limit, accreditationList(status, page.q), (row) =>
    status === 'pending'
      ? [row.submitted_at!, row.id]
      : status === 'documents_needed'
        ? [row.id]
        : [row.reviewed_at!, row.id],
  );
  return { items: await toApiAccreditations(db, items), nextCursor, counts };
}

/** The sort key a cursor of this list carries. */
export const accreditationCursorLength = (status: AccreditationListStatus) =>
  status === 'documents_needed' ? 1 : 2;

const staleDetail =
  'This accreditation changed since you read it (decided by someone else, sent for review, or the investor uploaded a file); reload it and try again.';

/** What an admin decides: approved, or rejected with a reason (and a note when the reason is `other`). */
export interface Decision {
  status: 'approved' | 'rejected';
  reason: RejectionReason | null;
  note: string | null;
}

/**
 * An admin's decision from the request's fields, or a 422 naming what is missing: a rejection says
 * why (`reason`), and `other` says it in words (`note`); an approval has no reason.
 */
export function decisionOf(update: AccreditationUpdate & { status: Decision['status'] }): Decision {
  const note = update.note?.trim() || null;
  const reason = update.reason ?? null;
  if (update.status === 'rejected' && !reason)
    throw validationFailed([
      { field: 'accreditation.reason', message: 'say why the accreditation is rejected' },
    ]);
  if (update.status === 'approved' && reason)
    throw validationFailed([{ field: 'accreditation.reason', message: 'goes with a rejection only' }]);
  if (reason === 'other' && !note)
    throw validationFailed([{ field: 'accreditation.note', message: 'say in words why it is rejected' }]);
  return { status: update.status, reason, note };
}

/**
 * Records an admin's decision with its history entry and the files it was made on (the
 * accreditation's files as they are now, thumbnails aside), in one transaction. Deciding again on a
 * decided accreditation is a new decision (a correction; the earlier one stays in the history),
 * unless it repeats the current one (same status, reason and note), which changes nothing: a
 * retried request records no second entry. One that has not been sent for review is not decided
 * (409 `not_submitted`). `If-Match` with the accreditation's ETag makes a decision on a page that
 * has gone stale a 412.
 */
export async function decide(
  db: DB,
  id: number,
  decision: Decision,
  reviewerId: number,
  at: number,
  ifMatch: string | undefined,
): Promise<ApiAccreditation> {
  return db.transaction().execute(async (trx) => {
    const current = await lockedAccreditationReviewState(trx, id);
    checkIfMatch(ifMatch, accreditationEtag(current), staleDetail);
    if (current.status === 'documents_needed') {
      throw new ApiError(
        409,
        'not_submitted',
        'This accreditation has not been sent for review yet: its investor is still adding documents.',
      );
    }
    const repeated =
      current.status === decision.status &&
      current.review_note === decision.note &&
      current.review_reason === decision.reason;
    if (!repeated) {
      await recordDecision(trx, id, { ...decision, reviewerId, at, version: current.version + 1 });
      const historyId = await appendHistoryEntry(trx, {
        accreditation_id: id,
        at,
        actor_id: reviewerId,
        action: decision.status,
        note: decision.note,
        reason: decision.reason,
      });
      const files = await accreditationFiles(trx, [id]);
      await insertDecisionFiles(
        trx,
        files.map((file) => ({
          history_id: historyId,
          accreditation_id: id,
          asset_id: file.id,
          name: file.name,
          sha256: file.sha256,
          file_type: file.file_type,
          // The flags the reviewer saw (issue 31), kept as they were.
          quality_issues:
            file.quality === null ? null : JSON.stringify((JSON.parse(file.quality) as PhotoQuality).issues),
        })),
      );
    }
    return accreditationView(trx, id);
  });
}

/** What the owner sends: "Send for review" (`status: "pending"`) and the answer about the address. */
export interface OwnerUpdate {
  submit: boolean;
  addressOnLicence?: boolean;
}

/**
 * The owner's changes, in one transaction, in this order: the answer about the address on the
 * licence (refused with 409 `in_review` while waiting for a decision; after a decision it reopens
 * the accreditation, whose requirements have changed), then the send for review (422 naming each
 * requirement not met; already waiting: nothing changes). `If-Match` as for a decision.
 */
export async function updateAsOwner(
  db: DB,
  id: number,
  update: OwnerUpdate,
  ownerId: number,
  at: number,
  ifMatch: string | undefined,
): Promise<ApiAccreditation> {
  return db.transaction().execute(async (trx) => {
    const current = await lockedAccreditationReviewState(trx, id);
    checkIfMatch(ifMatch, accreditationEtag(current), staleDetail);
    const entry = { accreditation_id: id, at, actor_id: ownerId, note: null };
    const address = update.addressOnLicence;
    if (address !== undefined && address !== (current.address_on_licence === 1)) {
      if (current.status === 'pending') {
        throw new ApiError(
          409,
          'in_review',
          'This accreditation is waiting for a decision; its answers cannot change until an admin has decided.',
        );
      }
      await recordAddressOnLicence(trx, id, address);
      await appendHistory(trx, [{ ...entry, action: 'address_changed' }]);
      if (await reopenIfDecided(trx, id)) await appendHistory(trx, [{ ...entry, action: 'reopened' }]);
    }
    if (update.submit && current.status !== 'pending') {
      const [view] = await toApiAccreditations(trx, [await accreditationViewRow(trx, id)]);
      const unmet = view!.requirements.filter((requirement) => !requirement.met);
      if (unmet.length > 0)
        throw validationFailed(
          unmet.map((r) => ({ field: `requirements.${r.kind}`, message: requirementMessages[r.kind] })),
        );
      await recordSubmission(trx, id, at);
      await appendHistory(trx, [{ ...entry, action: 'submitted' }]);
    }
    return accreditationView(trx, id);
  });
}

/** Why "Send for review" is refused, per requirement not met, in the investor's words. */
const requirementMessages: Record<ApiAccreditation['requirements'][number]['kind'], string> = {
  accreditation_letter: 'add your letter of accreditation (or the executed letter)',
  drivers_license: "add both sides of your driver's licence (two photos, or one photo showing both sides)",
  utility_bill: 'add a utility bill showing your current address',
};
