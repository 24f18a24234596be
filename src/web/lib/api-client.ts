import type { AppConfig } from '../config/app-config';
import { ApiError } from './api-error';
import type { Session } from './session';

export interface ApiClient {
  /** The platform's JSON API: bearer token added, one retry after renewal on 401, ApiError on failure. */
  request<T>(path: string, init?: RequestInit): Promise<T>;
  /** The current access token, for calls made outside fetch (uploads through XMLHttpRequest). */
  accessToken(): Promise<string>;
  /** Where the platform's API lives: `{base_url}` of the spec. */
  readonly baseUrl: string;
}

export function createApiClient(config: AppConfig, session: Session, onSignedOut: () => void): ApiClient {
  const baseUrl = config.platformBaseUrl.replace(/\/+$/, '');

  async function accessToken(): Promise<string> {
    const token = await session.accessToken();
    if (token) return token;
    onSignedOut();
    throw new ApiError(401, 'unauthorized', 'Your session has ended. Please sign in again.');
  }

  async function send(path: string, init: RequestInit, token: string) {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${token}`);
    if (!headers.has('Accept')) headers.set('Accept', 'application/json');
    return fetch(`${baseUrl}${path}`, { ...init, headers, credentials: 'omit' });
  }

  async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
    let response = await send(path, init, await accessToken());
    if (response.status === 401) {
      // The token may have been revoked or expired early: renew once, then try again once.
      const renewed = await session.renew().catch(() => null);
      if (renewed) response = await send(path, init, renewed.access_token);
      if (response.status === 401) {
        onSignedOut();
        throw new ApiError(401, 'unauthorized', 'Your session has ended. Please sign in again.');
      }
    }
    if (!response.ok) throw await ApiError.fromResponse(response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  return { request, accessToken, baseUrl };
}
