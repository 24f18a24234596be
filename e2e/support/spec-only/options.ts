import { specDefaultPassword } from './fixtures';

/** A registered OAuth application (spec 5, step 1). */
export interface SpecClient {
  client_id: string;
  client_secret: string;
  /** Compared byte for byte with the authorize request's redirect_uri. */
  redirect_uris: string[];
}

/**
 * Every switch is one thing the spec leaves "not shown". The defaults are the strictest reading: no
 * refresh grant, no revocation, no renditions, updates answered with 204, no entity routes.
 */
export interface SpecOnlyPlatformOptions {
  clients: SpecClient[];
  /** Where it listens; port 0 picks a free one. [127.0.0.1, 0] */
  host?: string;
  port?: number;
  /** Its own absolute address (base_url = auth_url), used in download URLs. [http://host:port] */
  publicUrl?: string;
  /** The fixed people's password. ['spec-password'] */
  password?: string;
  /** Enforced, never announced in the token response. [3600] */
  accessTokenTtlSeconds?: number;
  /** Origins allowed by CORS on the API. [none] */
  corsOrigins?: string[];
  /** The exact Access-Control-Allow-Headers answered to preflights. [Authorization, Content-Type] */
  corsHeaders?: string[];
  /** Status of `PUT /v2/core/assets/:id`: 200 with `{"asset": …}` or 204 with no body. [204] */
  updateAnswer?: 200 | 204;
  /** How an entity gives its assets, or `missing`: no entity routes at all. ['missing'] */
  entityShape?: EntityShape;
  /** In `links-only`, what the links' assets URL answers. ['envelope'] */
  assetList?: 'envelope' | 'array';
  /** `grant_type=refresh_token` accepted. [false] */
  refresh?: boolean;
  /** `POST /v2/core/oauth/revoke` exists. [false] */
  revoke?: boolean;
  /** `download_url?variant=preview|cropped&width=N` serves a WebP rendition. [false] */
  renditions?: boolean;
  /** Largest file accepted by create; the spec states no limit. [104857600] */
  maxUploadBytes?: number;
  /**
   * Its clock in milliseconds, for token and link lifetimes. A test moves it forward to let a
   * lifetime pass at once, instead of waiting it out and hoping each step before was quick enough.
   * [Date.now]
   */
  clock?: () => number;
}

export type EntityShape = 'sideloaded' | 'top-level' | 'links-only' | 'missing';

export type ResolvedOptions = Required<Omit<SpecOnlyPlatformOptions, 'publicUrl'>> & { publicUrl?: string };

export function withDefaults(options: SpecOnlyPlatformOptions): ResolvedOptions {
  return {
    host: '127.0.0.1',
    port: 0,
    password: specDefaultPassword,
    accessTokenTtlSeconds: 3600,
    corsOrigins: [],
    corsHeaders: ['Authorization', 'Content-Type'],
    updateAnswer: 204,
    entityShape: 'missing',
    assetList: 'envelope',
    refresh: false,
    revoke: false,
    renditions: false,
    maxUploadBytes: 100 * 1024 * 1024,
    clock: Date.now,
    ...withoutUndefined(options),
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The CLI's environment variables, one per option (see spec-only-platform.ts). */
export function optionsFromEnv(env: NodeJS.ProcessEnv): SpecOnlyPlatformOptions {
  const problems: string[] = [];
  const read = <T>(name: string, parse: (raw: string) => T | undefined): T | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const value = parse(raw);
    if (value === undefined) problems.push(`${name}=${raw}`);
    return value;
  };
  const list = (raw: string) =>
    raw
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const integer = (raw: string) => (/^\d+$/.test(raw) ? Number(raw) : undefined);
  const onOff = (raw: string) => ({ on: true, '1': true, off: false, '0': false })[raw];
  const oneOf =
    <T extends string>(...values: T[]) =>
    (raw: string) =>
      values.find((value) => value === raw);

  const clients = read('SPEC_PLATFORM_CLIENTS', parseClients);
  const options: SpecOnlyPlatformOptions = {
    clients: clients ?? [],
    host: read('SPEC_PLATFORM_HOST', (raw) => raw),
    port: read('SPEC_PLATFORM_PORT', integer),
    publicUrl: read('SPEC_PLATFORM_PUBLIC_URL', (raw) => (URL.canParse(raw) ? raw : undefined)),
    password: read('SPEC_PLATFORM_PASSWORD', (raw) => raw),
    accessTokenTtlSeconds: read('SPEC_PLATFORM_ACCESS_TOKEN_TTL', integer),
    corsOrigins: read('SPEC_PLATFORM_CORS_ORIGINS', list),
    corsHeaders: read('SPEC_PLATFORM_CORS_HEADERS', list),
    updateAnswer: read('SPEC_PLATFORM_UPDATE_ANSWER', (raw) =>
      raw === '200' || raw === '204' ? (Number(raw) as 200 | 204) : undefined,
    ),
    entityShape: read(
      'SPEC_PLATFORM_ENTITY_SHAPE',
      oneOf('sideloaded', 'top-level', 'links-only', 'missing'),
    ),
    assetList: read('SPEC_PLATFORM_ASSET_LIST', oneOf('envelope', 'array')),
    refresh: read('SPEC_PLATFORM_REFRESH', onOff),
    revoke: read('SPEC_PLATFORM_REVOKE', onOff),
    renditions: read('SPEC_PLATFORM_RENDITIONS', onOff),
    maxUploadBytes: read('SPEC_PLATFORM_MAX_UPLOAD_BYTES', integer),
  };
  if (!clients) problems.push('SPEC_PLATFORM_CLIENTS is required');
  if (problems.length > 0) throw new Error(`Bad configuration: ${problems.join('; ')}`);
  return options;
}

function parseClients(raw: string): SpecClient[] | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    const isClient = (c: unknown): c is SpecClient => {
      const client = c as Partial<SpecClient> | null;
      return (
        typeof client?.client_id === 'string' &&
        typeof client.client_secret === 'string' &&
        Array.isArray(client.redirect_uris) &&
        client.redirect_uris.every((uri) => typeof uri === 'string')
      );
    };
    return Array.isArray(value) && value.every(isClient) ? value : undefined;
  } catch {
    return undefined;
  }
}
