import { createHash } from 'node:crypto';
import type { AssetsContext } from './assets-context';
import type { DB } from '../db/database';
import {
  deleteIdempotencyKeysBefore,
  idempotencyKeyRow,
  idempotencyKeysInProgress,
  insertIdempotencyKey,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
  takeOverIdempotencyKey,
} from '../db/repositories/assets';
import { ApiError } from '../http/errors';
import { claimName, type RunningClaims } from '../shared-state/running-claims';

const dayMs = 24 * 60 * 60 * 1000;
const keyPattern = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** The longest a client is told to wait before asking again about a key still in progress. */
const inProgressRetrySeconds = 5;

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
  constructor(private readonly ctx: AssetsContext) {}

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
    await deleteIdempotencyKeysBefore(db, now - dayMs);
    if (await insertIdempotencyKey(db, userId, key, now)) return { kind: 'new', claimedAt: now };
    const row = await idempotencyKeyRow(db, userId, key);
    if (row.request_hash === null || row.response === null || row.status === null) {
      if (row.created_at <= now - config.http.requestTimeoutMs || !(await this.running(userId, key))) {
        // Of two retries, one takes the key over.
        if (await takeOverIdempotencyKey(db, userId, key, row.created_at, now))
          return { kind: 'new', claimedAt: now };
      }
      // A few seconds usually sees the first request answered; it is taken over at the latest when
      // it has run past the upload time limit.
      const takenOverIn = Math.ceil((row.created_at + config.http.requestTimeoutMs - now) / 1000);
      throw new ApiError(
        409,
        'request_in_progress',
        'A request with this Idempotency-Key is still being processed.',
        undefined,
        { 'retry-after': String(Math.min(Math.max(takenOverIn, 1), inProgressRetrySeconds)) },
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
    trx: DB,
    userId: number,
    key: string,
    claimedAt: number,
    requestHash: string,
    response: StoredResponse,
  ) {
    const answer = { requestHash, status: response.status, body: response.body };
    if (!(await recordIdempotentAnswer(trx, userId, key, claimedAt, answer))) {
      throw new ApiError(
        409,
        'request_in_progress',
        'This request ran past the upload time limit and a retry with the same Idempotency-Key took its place.',
        undefined,
        // Asked again, the key answers the retry's result.
        { 'retry-after': '1' },
      );
    }
  }

  /** A failed first request frees its key, so the client can retry with it. */
  async release(userId: number, key: string, claimedAt: number) {
    await releaseIdempotencyKey(this.ctx.db, userId, key, claimedAt);
  }
}

/**
 * At start: a key still in progress belongs to a request that a stop or crash cut off, and would
 * answer its retries 409 for a day (H7), unless another instance of the platform is running it.
 */
export async function releaseInterruptedKeys(db: DB, claims: RunningClaims): Promise<number> {
  const inProgress = await idempotencyKeysInProgress(db);
  const running = await claims.running(inProgress.map((row) => claimName(row.user_id, row.key)));
  let released = 0;
  for (const row of inProgress) {
    if (running.has(claimName(row.user_id, row.key))) continue;
    if (await releaseIdempotencyKey(db, row.user_id, row.key, row.created_at)) released++;
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
