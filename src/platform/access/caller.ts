import type { Role } from '../../shared/api/me';
import type { Scope } from '../../shared/api/oauth';

/** Who is calling the API, from their bearer token. */
export interface Caller {
  userId: number;
  role: Role;
  scope: Scope;
}
