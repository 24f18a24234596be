import { json } from './answers';
import { extensionPage } from './extension-page';
import type { HistoryEntry, Page, RejectionReason, ReviewPage } from './model';
import { ifMatch, type PlatformContext } from './platform-context';
import { readAccreditation, readHistoryEntry, readPage, readReviewCounts } from './read-shapes';

/** Accreditations under review (ours): the admins' queue, decisions, the owner's answers, history. */

/** What an admin decides about an accreditation. */
export type ReviewDecision = { status: 'approved' | 'rejected'; note: string; reason?: RejectionReason };

/**
 * Admins: accreditations waiting for a decision (oldest first), or decided ones (newest decision
 * first); `search` narrows them where the platform can, `counts` come where it gives them.
 */
export async function loadReviewList(
  context: PlatformContext,
  which: 'pending' | 'decided',
  cursor?: string,
  search?: string,
): Promise<ReviewPage> {
  const query = new URLSearchParams({ status: which });
  if (search) query.set('q', search);
  let counts: ReviewPage['counts'];
  const page = await extensionPage(
    context,
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
}

/** An accreditation's decisions and file changes, newest first (its owner and admins). */
export function loadHistory(
  context: PlatformContext,
  accreditationId: number,
  cursor?: string,
): Promise<Page<HistoryEntry>> {
  return extensionPage(
    context,
    'reviewHistory',
    'a history of decisions',
    `/v2/core/accreditations/${accreditationId}/history`,
    cursor,
    (body) => readPage(body, 'history', readHistoryEntry),
  );
}

/** An admin's decision; the reason only with a rejection, the note only when there is one. */
export function sendDecision(
  context: PlatformContext,
  id: number,
  decision: ReviewDecision,
  options: { keepalive?: boolean; etag?: string } = {},
): Promise<void> {
  return changeAccreditation(
    context,
    id,
    {
      status: decision.status,
      ...(decision.reason && decision.status === 'rejected' ? { reason: decision.reason } : {}),
      ...(decision.note ? { note: decision.note } : {}),
    },
    options,
  );
}

/** The owner sends a complete accreditation for review. */
export function sendForReview(context: PlatformContext, id: number, options: { etag?: string } = {}) {
  return changeAccreditation(context, id, { status: 'pending' }, options);
}

/** The owner says whether the driver's licence shows the current address. */
export function setAddressOnLicence(
  context: PlatformContext,
  id: number,
  onLicence: boolean,
  options: { etag?: string } = {},
) {
  return changeAccreditation(context, id, { address_on_licence: onLicence }, options);
}

/** A change to an accreditation: a decision, a send for review, the address answer. */
async function changeAccreditation(
  context: PlatformContext,
  id: number,
  accreditation: Record<string, unknown>,
  options: { keepalive?: boolean; etag?: string },
): Promise<void> {
  const init: RequestInit = {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', ...ifMatch(context, options) },
    body: JSON.stringify({ accreditation }),
  };
  if (options.keepalive) init.keepalive = true;
  await json(await context.http.send(`/v2/core/accreditations/${id}`, init));
}
