/**
 * An oidc-provider adapter on better-sqlite3 with the platform's durability: WAL and
 * `synchronous = FULL`, so every answered write has been synced to disk, as ours are. One table of
 * JSON payloads keyed by (model, id) with the lookups oidc-provider asks for (uid, user code, grant).
 */
import Database from 'better-sqlite3';
import type { Adapter, AdapterPayload } from 'oidc-provider';

export function sqliteAdapter(file: string) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE IF NOT EXISTS oidc (
    model TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL, grant_id TEXT, user_code TEXT,
    uid TEXT, expires_at INTEGER, PRIMARY KEY (model, id))`);
  db.exec('CREATE INDEX IF NOT EXISTS oidc_grant ON oidc (grant_id)');
  db.exec('CREATE INDEX IF NOT EXISTS oidc_uid ON oidc (model, uid)');
  db.exec('CREATE INDEX IF NOT EXISTS oidc_user_code ON oidc (model, user_code)');
  const upsert = db.prepare(
    `INSERT INTO oidc (model, id, payload, grant_id, user_code, uid, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
     user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
  );
  const byId = db.prepare('SELECT payload, expires_at FROM oidc WHERE model = ? AND id = ?');
  const byUid = db.prepare('SELECT payload, expires_at FROM oidc WHERE model = ? AND uid = ?');
  const byUserCode = db.prepare('SELECT payload, expires_at FROM oidc WHERE model = ? AND user_code = ?');
  const consume = db.prepare(
    `UPDATE oidc SET payload = json_set(payload, '$.consumed', ?) WHERE model = ? AND id = ?`,
  );
  const remove = db.prepare('DELETE FROM oidc WHERE model = ? AND id = ?');
  const removeGrant = db.prepare('DELETE FROM oidc WHERE grant_id = ?');

  const live = (row: unknown) => {
    const found = row as { payload: string; expires_at: number | null } | undefined;
    if (!found || (found.expires_at !== null && found.expires_at <= Date.now())) return undefined;
    return JSON.parse(found.payload) as AdapterPayload;
  };

  return class SqliteAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number) {
      upsert.run(
        this.model,
        id,
        JSON.stringify(payload),
        payload.grantId ?? null,
        payload.userCode ?? null,
        payload.uid ?? null,
        expiresIn ? Date.now() + expiresIn * 1000 : null,
      );
    }
    async find(id: string) {
      return live(byId.get(this.model, id));
    }
    async findByUid(uid: string) {
      return live(byUid.get(this.model, uid));
    }
    async findByUserCode(userCode: string) {
      return live(byUserCode.get(this.model, userCode));
    }
    async consume(id: string) {
      consume.run(Math.floor(Date.now() / 1000), this.model, id);
    }
    async destroy(id: string) {
      remove.run(this.model, id);
    }
    async revokeByGrantId(grantId: string) {
      removeGrant.run(grantId);
    }
  };
}
