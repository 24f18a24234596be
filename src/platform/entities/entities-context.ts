import type { DB } from '../db/database';

/** What the entity and review routes are given by the composition root (composition/app.ts). */
export interface EntitiesContext {
  db: DB;
  /** Milliseconds since the epoch; tests move it. */
  clock: () => number;
}
