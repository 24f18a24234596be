import { apiPaths } from '../shared/api/paths';
import { resumableUploadsPath, tusVersion } from '../shared/api/resumable-uploads';
import type { Capabilities } from '../shared/api/app-config';
import type { AssetableType } from '../shared/api/assetable';

/**
 * What the proxy can learn about the platform before anyone signs in, from three public sources:
 * CORS preflights (may the app's pages call the API directly, and with which headers), RFC 8414
 * authorization-server metadata (revocation, refresh grant) and the API description at
 * `/v2/core/openapi.json` (our platform's extensions). A platform that implements only the spec
 * publishes neither document; what stays unknown the app learns by trying.
 */
export interface ProbeResult {
  /** False when the platform could not be reached at all: probe again later. */
  reachable: boolean;
  cors: CorsFindings | null;
  oauth: Pick<Capabilities, 'revoke' | 'refreshGrant'> | null;
  api: Pick<
    Capabilities,
    'me' | 'entityReads' | 'renditions' | 'review' | 'reviewHistory' | 'offerings'
  > | null;
  /** Whether `OPTIONS /v2/core/uploads` answers as tus does (src/shared/api/resumable-uploads.ts). */
  resumableUploads?: boolean | null;
}

export interface CorsFindings {
  /** Reads, uploads, changes and deletes with a bearer token are all allowed from the app's origin. */
  direct: boolean;
  idempotencyKey: boolean;
  ifMatch: boolean;
}

export interface ProbeOptions {
  platformBaseUrl: string;
  platformAuthUrl: string;
  /** The web app's origin, as its pages would send it. */
  appOrigin: string;
  entityPaths: Record<AssetableType, string | null>;
  timeoutMs: number;
  fetch?: typeof fetch;
}

class Unreachable extends Error {}

export async function probePlatform(options: ProbeOptions): Promise<ProbeResult> {
  const fetcher = options.fetch ?? fetch;
  const call = async (url: string, init: RequestInit = {}): Promise<Response> => {
    try {
      return await fetcher(url, {
        ...init,
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch {
      throw new Unreachable();
    }
  };
  try {
    const [cors, oauth, api, resumableUploads] = await Promise.all([
      probeCors(call, options),
      probeOAuthMetadata(call, options.platformAuthUrl),
      probeApiDescription(call, options),
      probeResumableUploads(call, options),
    ]);
    return { reachable: true, cors, oauth, api, resumableUploads };
  } catch (error) {
    if (error instanceof Unreachable)
      return { reachable: false, cors: null, oauth: null, api: null, resumableUploads: null };
    throw error;
  }
}

type Call = (url: string, init?: RequestInit) => Promise<Response>;

async function readJson(response: Response): Promise<unknown> {
  if (!response.ok || !/json/i.test(response.headers.get('content-type') ?? '')) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  return response.json().catch(() => undefined);
}

const headerList = (value: string | null) =>
  new Set(
    (value ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );

/**
 * Asks as the browser would before a cross-origin request with a bearer token. The app sends no
 * cookies (credentials: omit), so `*` counts for origins, methods and headers, except that
 * `Authorization` must always be named (Fetch standard, CORS-non-wildcard request-header name).
 */
async function probeCors(call: Call, options: ProbeOptions): Promise<CorsFindings | null> {
  const preflight = async (path: string, method: string, headers: string[]) => {
    const response = await call(`${options.platformBaseUrl}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: options.appOrigin,
        'access-control-request-method': method,
        'access-control-request-headers': headers.join(','),
      },
    });
    await response.body?.cancel().catch(() => undefined);
    const origin = response.headers.get('access-control-allow-origin');
    if (!response.ok || (origin !== '*' && origin !== options.appOrigin)) return null;
    const methods = headerList(response.headers.get('access-control-allow-methods'));
    const allowed = headerList(response.headers.get('access-control-allow-headers'));
    const methodOk = method === 'POST' || methods.has(method.toLowerCase()) || methods.has('*');
    const allows = (header: string) =>
      allowed.has(header) || (allowed.has('*') && header !== 'authorization');
    return { methodOk, allows };
  };
  const [create, update, remove] = await Promise.all([
    preflight('/v2/core/assets', 'POST', ['authorization', 'idempotency-key']),
    preflight('/v2/core/assets/1', 'PUT', ['authorization', 'content-type', 'if-match']),
    preflight('/v2/core/assets/1', 'DELETE', ['authorization']),
  ]);
  if (!create || !update || !remove) return { direct: false, idempotencyKey: false, ifMatch: false };
  const direct =
    create.methodOk &&
    update.methodOk &&
    remove.methodOk &&
    create.allows('authorization') &&
    update.allows('authorization') &&
    update.allows('content-type') &&
    remove.allows('authorization');
  return { direct, idempotencyKey: create.allows('idempotency-key'), ifMatch: update.allows('if-match') };
}

/**
 * tus discovery: an `OPTIONS` on the uploads endpoint that answers `Tus-Resumable` (tus 1.0,
 * section 5.2), with no token, as any tus client asks before it starts. A platform without it
 * answers 404, 405 or a preflight without the header.
 */
async function probeResumableUploads(call: Call, options: ProbeOptions): Promise<boolean> {
  const response = await call(`${options.platformBaseUrl}${resumableUploadsPath}`, { method: 'OPTIONS' });
  await response.body?.cancel().catch(() => undefined);
  return response.ok && response.headers.get('tus-resumable') === tusVersion;
}

/** RFC 8414 section 3: the well-known path goes between the host and the issuer's own path. */
export function metadataUrl(issuer: string): string {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}/.well-known/oauth-authorization-server${path}`;
}

async function probeOAuthMetadata(call: Call, authUrl: string): Promise<ProbeResult['oauth']> {
  const metadata = (await readJson(await call(metadataUrl(authUrl)))) as
    { issuer?: unknown; revocation_endpoint?: unknown; grant_types_supported?: unknown } | undefined;
  if (typeof metadata?.issuer !== 'string') return null;
  // RFC 8414 2: without grant_types_supported, the default is authorization_code and implicit only.
  const grants = Array.isArray(metadata.grant_types_supported) ? metadata.grant_types_supported : [];
  return {
    revoke: typeof metadata.revocation_endpoint === 'string',
    refreshGrant: grants.includes('refresh_token'),
  };
}

interface OpenApiOperation {
  parameters?: { in?: string; name?: string }[];
}
type OpenApiPaths = Record<string, Record<string, OpenApiOperation | undefined> | undefined>;

async function probeApiDescription(call: Call, options: ProbeOptions): Promise<ProbeResult['api']> {
  const description = (await readJson(await call(`${options.platformBaseUrl}${apiPaths.openapi}`))) as
    { openapi?: unknown; paths?: OpenApiPaths } | undefined;
  if (typeof description?.openapi !== 'string' || typeof description.paths !== 'object') return null;
  const paths = description.paths;
  const operation = (path: string, method: string) => paths[path]?.[method];
  const hasParameter = (path: string, method: string, place: string, name: string) =>
    (operation(path, method)?.parameters ?? []).some((p) => p.in === place && p.name?.toLowerCase() === name);
  const entityTemplates = Object.values(options.entityPaths)
    .filter((path): path is string => path !== null)
    .map((path) => path.replace(':id', '{id}'));
  return {
    me: operation(apiPaths.me, 'get') !== undefined,
    entityReads:
      entityTemplates.length > 0 && entityTemplates.every((p) => operation(p, 'get') !== undefined),
    renditions: hasParameter('/v2/core/assets/{id}/download_url', 'get', 'query', 'variant'),
    review:
      operation('/v2/core/accreditations', 'get') !== undefined &&
      operation('/v2/core/accreditations/{id}', 'put') !== undefined,
    reviewHistory: operation('/v2/core/accreditations/{id}/history', 'get') !== undefined,
    offerings: operation('/v2/core/products', 'get') !== undefined,
  };
}
