import { ApiError } from './errors';

/**
 * Reading the platform's answers and following its links, the same way in every part of the adapter.
 */

/** 404 or 405 on an endpoint beyond the spec: the platform does not have it. */
export const absent = (response: Response) => response.status === 404 || response.status === 405;

/** An answer that is not a success, as the ApiError that words it for the person. */
export async function failure(response: Response): Promise<never> {
  throw await ApiError.fromResponse(response);
}

/** A success's JSON body (undefined for 204 or a body that is not JSON); a failure throws. */
export async function json(response: Response): Promise<unknown> {
  if (!response.ok) return failure(response);
  if (response.status === 204) return undefined;
  return response.json().catch(() => undefined);
}

/** `Retry-After` in seconds (the only form our platform sends), as milliseconds; a second when absent. */
export function retryAfterMs(response: Response): number {
  const seconds = Number(response.headers.get('Retry-After'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 300) * 1000 : 1000;
}

/** A link of the platform with these query parameters set; absolute or a path, as it came. */
export function withQuery(link: string, parameters: Record<string, string>): string {
  const absolute = /^https?:\/\//i.test(link);
  const url = new URL(link, 'http://relative.invalid');
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return absolute ? url.href : `${url.pathname}${url.search}`;
}
