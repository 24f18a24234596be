import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PlatformContext } from '../context';
import type { Database } from '../db/schema';
import { ApiError } from '../errors';
import { claimName, type RunningClaims } from './running-claims';

const dayMs = 24 * 60 * 60 * 1000;
const keyPattern = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/**
 * `claimedAt` (the row's `created_at` when this request claimed the key) fences the claim: once
 * another request has taken the key over, this one can neither complete nor release it.
 */
export type Claim =
  { kind: 'new'; claimedAt: number } | { kind: 'replay'; requestHash: string; response: StoredResponse };

/**
 * Idempotency-Key for `POST /v2/core/assets` (decisions.md): the same key from the same user within
 * 24 hours answers the first result; the same key with another request answers 422; a key whose
 * first request is still running answers 409, so a retry can never make a second asset.
 *
 * A key is "running" only as long as its request can be (H7): the keys of requests cut off by a
 * stop or a crash are released at start (`releaseInterruptedKeys`), and a key is taken over by the
 * next request with it once its first request has run longer than the upload time limit
 * (REQUEST_TIMEOUT_MS, by which its body must have arrived) or no instance runs it any more (its
 * instance died or restarted while another was running: `RunningClaims`).
 */
export class IdempotencyKeys {
  constructor(private readonly ctx: PlatformContext) {}

  parseHeader(value: string | string[] | undefined): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !keyPattern.test(value)) {
      throw new ApiError(
        400,
        'malformed_request',
        'Idempotency-Key must be 1 to 255 visible ASCII characters.',
      );
    }
    return value;
  }

  async claim(userId: number, key: string): Promise<Claim> {
    const { db, clock, config } = this.ctx;
    const now = clock();
    await db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', now - dayMs)
      .execute();
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({ user_id: userId, key, created_at: now })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (inserted.numInsertedOrUpdatedRows === 1n) return { kind: 'new', claimedAt: now };
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    if (row.request_hash === null || row.response === null || row.status === null) {
      if (row.created_at <= now - config.http.requestTimeoutMs || !(await this.running(userId, key))) {
        // Compare-and-set on the old claim's time: of two retries, one takes the key over.
        const taken = await db
          .updateTable('idempotency_keys')
          .set({ created_at: now })
          .where('user_id', '=', userId)
          .where('key', '=', key)
          .where('request_hash', 'is', null)
          .where('created_at', '=', row.created_at)
          .executeTakeFirst();
        if (taken.numUpdatedRows === 1n) return { kind: 'new', claimedAt: now };
      }
      throw new ApiError(
        409,
        'request_in_progress',
        'A request with this Idempotency-Key is still being processed.',
      );
    }
    return {
      kind: 'replay',
      requestHash: row.request_hash,
      response: { status: row.status, body: JSON.parse(row.response) },
    };
  }

  private async running(userId: number, key: string) {
    const name = claimName(userId, key);
    return (await this.ctx.runningClaims.running([name])).has(name);
  }

  /**
   * Records the answer in the same transaction that created the asset; throws (undoing that
   * transaction) when the claim was taken over meanwhile, so that one key never makes two assets.
   */
  async complete(
    trx: Kysely<Database>,
    userId: number,
    key: string,
    claimedAt: number,
    requestHash: string,
    response: StoredResponse,
  ) {
    const recorded = await trx
      .updateTable('idempotency_keys')
      .set({ request_hash: requestHash, status: response.status, response: JSON.stringify(response.body) })
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .where('request_hash', 'is', null)
      .where('created_at', '=', claimedAt)
      .executeTakeFirst();
    if (recorded.numUpdatedRows !== 1n) {
      throw new ApiError(
        409,
        'request_in_progress',
        'This request ran past the upload time limit and a retry with the same Idempotency-Key took its place.',
      );
    }
  }

  /** A failed first request frees its key, so the client can retry with it. */
  async release(userId: number, key: string, claimedAt: number) {
    await this.ctx.db
      .deleteFrom('idempotency_keys')
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .where('request_hash', 'is', null)
      .where('created_at', '=', claimedAt)
      .execute();
  }
}

/**
 * At start: a key still in progress belongs to a request that a stop or crash cut off, and would
 * answer its retries 409 for a day (H7), unless another instance of the platform is running it.
 */
export async function releaseInterruptedKeys(db: Kysely<Database>, claims: RunningClaims): Promise<number> {
  const inProgress = await db
    .selectFrom('idempotency_keys')
    .select(['user_id', 'key', 'created_at'])
    .where('request_hash', 'is', null)
    .execute();
  const running = await claims.running(inProgress.map((row) => claimName(row.user_id, row.key)));
  let released = 0;
  for (const row of inProgress) {
    if (running.has(claimName(row.user_id, row.key))) continue;
    const deleted = await db
      .deleteFrom('idempotency_keys')
      .where('user_id', '=', row.user_id)
      .where('key', '=', row.key)
      .where('request_hash', 'is', null)
      .where('created_at', '=', row.created_at)
      .executeTakeFirst();
    released += Number(deleted.numDeletedRows);
  }
  return released;
}

/** What makes two create requests "the same": their fields and the file's bytes. */
export function requestHash(fields: Record<string, unknown>, fileSha256: string): string {
  const canonical = JSON.stringify(
    Object.keys(fields)
      .sort()
      .map((k) => [k, fields[k]]),
  );
  return createHash('sha256').update(canonical).update('\0').update(fileSha256).digest('hex');
}
