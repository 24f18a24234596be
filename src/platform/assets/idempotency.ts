import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PlatformContext } from '../context';
import type { Database } from '../db/schema';
import { ApiError } from '../errors';

const dayMs = 24 * 60 * 60 * 1000;
const keyPattern = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: unknown;
}

export type Claim = { kind: 'new' } | { kind: 'replay'; requestHash: string; response: StoredResponse };

/**
 * Idempotency-Key for `POST /v2/core/assets` (decisions.md): the same key from the same user within
 * 24 hours answers the first result; the same key with another request answers 422; a key whose
 * first request is still running answers 409, so a retry can never make a second asset.
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
    const { db, clock } = this.ctx;
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
    if (inserted.numInsertedOrUpdatedRows === 1n) return { kind: 'new' };
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    if (row.request_hash === null || row.response === null || row.status === null) {
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

  /** Records the answer in the same transaction that created the asset. */
  async complete(
    trx: Kysely<Database>,
    userId: number,
    key: string,
    requestHash: string,
    response: StoredResponse,
  ) {
    await trx
      .updateTable('idempotency_keys')
      .set({ request_hash: requestHash, status: response.status, response: JSON.stringify(response.body) })
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .execute();
  }

  /** A failed first request frees its key, so the client can retry with it. */
  async release(userId: number, key: string) {
    await this.ctx.db
      .deleteFrom('idempotency_keys')
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .where('request_hash', 'is', null)
      .execute();
  }
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
