import type { DB } from '../db/database';
import { retainingDecision } from '../db/repositories/entities';
import { ApiError } from '../http/errors';

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "27 Nov 2026", in UTC: the same words whatever the server's locale. */
const dayOf = (ms: number) => {
  const date = new Date(ms);
  return `${date.getUTCDate()} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
};

/**
 * Refuses to delete a file a decision was made on (decisions.md "retained evidence"): 409
 * `retained`, naming the newest such decision. Whoever asks, owner or admin.
 */
export async function checkNotRetained(db: DB, assetId: number): Promise<void> {
  const decision = await retainingDecision(db, assetId);
  if (!decision) return;
  const what = decision.action === 'approved' ? 'approval' : 'rejection';
  throw new ApiError(
    409,
    'retained',
    `This file is kept as evidence of the ${what} of ${dayOf(decision.at)}; upload a new file beside it instead.`,
  );
}
