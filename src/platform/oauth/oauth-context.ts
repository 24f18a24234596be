import type { DB } from '../db/database';
import type { PlatformConfig } from '../config/env';
import type { SignInThrottle } from '../security/sign-in-limiter';
import type { AccessTokenCache } from './access-token-cache';

/** What the OAuth routes are given by the composition root (composition/app.ts). */
export interface OAuthContext {
  config: PlatformConfig;
  db: DB;
  /** Milliseconds since the epoch; tests move it to expire codes and tokens. */
  clock: () => number;
  signingKey: Buffer;
  signInLimiter: SignInThrottle;
  /** Callers of recent access tokens, on this instance or shared through Redis. */
  accessTokens: AccessTokenCache;
}
