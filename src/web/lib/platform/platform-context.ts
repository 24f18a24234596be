import type { AppConfig } from '../../../shared/api/app-config';
import type { UnfinishedUploadStore } from '../unfinished-uploads';
import type { CapabilityStore } from './capabilities';
import type { PlatformHttp } from './http';

/** What every part of the adapter works over; createPlatform makes one and hands it to each call. */
export interface PlatformContext {
  readonly config: AppConfig;
  readonly http: PlatformHttp;
  /** What the platform offers, as far as the proxy found and the answers so far taught. */
  readonly capabilities: CapabilityStore;
  /** Where resumable uploads are remembered for a reload (cleared on sign-out: browser-memory.ts). */
  readonly unfinished: UnfinishedUploadStore;
}

export const can = (context: PlatformContext) => context.capabilities.current;

/** If-Match where the platform gave an ETag and the header may be sent: a 412 then says "changed elsewhere". */
export function ifMatch(context: PlatformContext, target: { etag?: string }): Record<string, string> {
  return target.etag && can(context).ifMatch ? { 'If-Match': target.etag } : {};
}
