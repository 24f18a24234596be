import { authorizationCodeGrant } from './authorization-code';
import type { Grants } from './grant';
import { refreshTokenGrant } from './refresh-token';

/** The token endpoint's grants, one file each, by `grant_type`. */
export const grants: Grants = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
};
