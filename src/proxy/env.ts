import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { inspect } from 'node:util';
import { z } from 'zod';
import type { Capabilities } from '../shared/api/app-config';
import { capabilityNames } from '../shared/api/app-config';
import { entityPaths } from '../shared/api/entities';
import { scopes } from '../shared/api/oauth';
import { assetableTypes, type AssetableType } from '../shared/api/assetable';

/**
 * Holds the client secret so that it cannot end up in a log line or a JSON response by accident:
 * printing, inspecting or serializing it yields a placeholder. Only the token exchange calls reveal().
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString() {
    return '[redacted]';
  }
  toJSON() {
    return '[redacted]';
  }
  [inspect.custom]() {
    return '[redacted]';
  }
}

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const httpUrl = z.url({ protocol: /^https?$/ });

/** An origin-only URL: the proxy serves its routes at the root, so a path would be silently ignored. */
const originUrl = httpUrl.transform((value, ctx) => {
  const url = new URL(value);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    ctx.addIssue({ code: 'custom', message: 'must be an origin only (scheme, host, port), without a path' });
    return z.NEVER;
  }
  return url.origin;
});

/** The spec's {base_url} / {auth_url}: may carry a path prefix, never a query or credentials. */
const baseUrl = httpUrl.transform((value, ctx) => {
  const url = new URL(value);
  if (url.search || url.hash || url.username || url.password) {
    ctx.addIssue({ code: 'custom', message: 'must not carry a query, fragment or credentials' });
    return z.NEVER;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
});

/** `me=off,renditions=on`: what the proxy cannot probe, said by the operator (kebab-case names). */
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const capabilityOverrides = z
  .string()
  .default('')
  .transform((value, ctx) => {
    const overrides: Partial<Capabilities> = {};
    for (const item of value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [key, setting] = item.split('=').map((s) => s.trim());
      const name = capabilityNames.find((n) => kebab(n) === key);
      if (!name || (setting !== 'on' && setting !== 'off')) {
        ctx.addIssue({
          code: 'custom',
          message: `"${item}" is not name=on|off with a name of ${capabilityNames.map(kebab).join(', ')}`,
        });
        return z.NEVER;
      }
      overrides[name] = setting === 'on';
    }
    return overrides;
  });

/** `Product=/v2/core/offerings/:id,User=none`: where each kind of entity is read, when not the default. */
const entityPathOverrides = z
  .string()
  .default('')
  .transform((value, ctx) => {
    const paths = Object.fromEntries(
      assetableTypes.map((type) => [type, `/v2/core/${entityPaths[type].plural}/:id`]),
    ) as Record<AssetableType, string | null>;
    for (const item of value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [kind, path = ''] = item.split('=').map((s) => s.trim());
      const type = assetableTypes.find((t) => t === kind);
      const valid = path === 'none' || (path.startsWith('/') && path.includes(':id') && !path.includes('?'));
      if (!type || !valid) {
        ctx.addIssue({
          code: 'custom',
          message: `"${item}" is not Kind=/path/with/:id or Kind=none (kinds: ${assetableTypes.join(', ')})`,
        });
        return z.NEVER;
      }
      paths[type] = path === 'none' ? null : path;
    }
    return paths;
  });

const envSchema = z
  .object({
    WEB_HOST: z.string().min(1).default('127.0.0.1'),
    WEB_PORT: port.default(5173),
    WEB_PUBLIC_URL: originUrl.default('http://127.0.0.1:5173'),
    WEB_DIST_DIR: z.string().min(1).default('./dist'),
    PLATFORM_BASE_URL: baseUrl.default('http://127.0.0.1:4000'),
    /** Defaults to PLATFORM_BASE_URL: one platform usually serves both. */
    PLATFORM_AUTH_URL: baseUrl.optional(),
    OAUTH_CLIENT_ID: z.string().min(1).default('asset-manager'),
    OAUTH_SCOPE: z.enum(scopes).default('full'),
    /** Token and revoke requests per minute and address (P8). */
    TOKEN_RATE_LIMIT: positiveInt.default(30),
    /** How long a call to the platform's token endpoint may take before the browser gets a 504. */
    PLATFORM_TIMEOUT_MS: positiveInt.default(10_000),
    /** `1`: the app's API calls go through the proxy; `0`: straight to the platform; `auto`: by CORS. */
    PLATFORM_API_VIA_PROXY: z.enum(['0', '1', 'auto']).default('auto'),
    PLATFORM_CAPABILITIES: capabilityOverrides,
    PLATFORM_ENTITY_PATHS: entityPathOverrides,
    /** The largest request body the proxy forwards (an upload of the platform's largest file and its fields). */
    PROXY_MAX_BODY_BYTES: positiveInt.default(105 * 1024 * 1024),
    /** How long the platform may stay silent on a forwarded API call (an upload counts its pieces). */
    PROXY_API_TIMEOUT_MS: positiveInt.default(60_000),
    /** Forwarded API requests per minute and address. */
    PROXY_API_RATE_LIMIT: positiveInt.default(1200),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Prometheus metrics at /metrics on this port, never on WEB_PORT; unset: none, nothing listens. */
    PROXY_METRICS_PORT: port.optional(),
    /** Where the metrics port listens; default WEB_HOST. */
    PROXY_METRICS_HOST: z.string().min(1).optional(),
  })
  .transform((env) => {
    const platformBaseUrl = env.PLATFORM_BASE_URL;
    return {
      host: env.WEB_HOST,
      port: env.WEB_PORT,
      /** The web app's origin: token requests must come from it (P4). */
      publicOrigin: env.WEB_PUBLIC_URL,
      redirectUri: `${env.WEB_PUBLIC_URL}/auth/callback`,
      distDir: resolve(env.WEB_DIST_DIR),
      platformBaseUrl,
      platformAuthUrl: env.PLATFORM_AUTH_URL ?? platformBaseUrl,
      clientId: env.OAUTH_CLIENT_ID,
      scope: env.OAUTH_SCOPE,
      tokenRateLimit: env.TOKEN_RATE_LIMIT,
      platformTimeoutMs: env.PLATFORM_TIMEOUT_MS,
      apiViaProxy: env.PLATFORM_API_VIA_PROXY,
      capabilityOverrides: env.PLATFORM_CAPABILITIES,
      entityPaths: env.PLATFORM_ENTITY_PATHS,
      maxBodyBytes: env.PROXY_MAX_BODY_BYTES,
      apiRateLimit: env.PROXY_API_RATE_LIMIT,
      apiTimeoutMs: env.PROXY_API_TIMEOUT_MS,
      logLevel: env.LOG_LEVEL,
      metrics:
        env.PROXY_METRICS_PORT === undefined
          ? undefined
          : { host: env.PROXY_METRICS_HOST ?? env.WEB_HOST, port: env.PROXY_METRICS_PORT },
    };
  });

export type ProxyConfig = z.output<typeof envSchema> & { clientSecret: Secret };

/**
 * The client secret, from OAUTH_CLIENT_SECRET or from the file OAUTH_CLIENT_SECRET_FILE names: either the
 * bare secret or JSON with `client_secret`, such as the platform's DATA_DIR/web-client.json. A file keeps
 * the secret out of the process environment and lets `npm start` point at the platform's own file.
 */
function readSecret(
  inline: string | undefined,
  file: string | undefined,
): string | { variable: string; message: string } {
  if (inline !== undefined && file !== undefined) {
    return {
      variable: 'OAUTH_CLIENT_SECRET',
      message: 'set OAUTH_CLIENT_SECRET or OAUTH_CLIENT_SECRET_FILE, not both',
    };
  }
  if (inline !== undefined) return inline;
  if (file === undefined) {
    return {
      variable: 'OAUTH_CLIENT_SECRET',
      message: 'is required (or OAUTH_CLIENT_SECRET_FILE); the proxy cannot exchange codes without it',
    };
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return { variable: 'OAUTH_CLIENT_SECRET_FILE', message: `cannot read ${file} (${code})` };
  }
  if (text.startsWith('{')) {
    // The file's content is never echoed: a malformed file may still hold the secret.
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const value = (parsed as { client_secret?: unknown } | undefined)?.client_secret;
    if (typeof value === 'string' && value.length > 0) return value;
    return {
      variable: 'OAUTH_CLIENT_SECRET_FILE',
      message: `${file} is JSON without a client_secret string`,
    };
  }
  if (!text) return { variable: 'OAUTH_CLIENT_SECRET_FILE', message: `${file} is empty` };
  return text;
}

/** Reads the proxy's configuration; a bad value stops the start with the list of bad variables. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): ProxyConfig {
  const parsed = envSchema.safeParse(source);
  // Read apart from the schema so that a missing secret is listed along with every other bad variable.
  // An empty value counts as unset: `OAUTH_CLIENT_SECRET= npm run web` means "no secret".
  const secret = readSecret(
    source.OAUTH_CLIENT_SECRET || undefined,
    source.OAUTH_CLIENT_SECRET_FILE || undefined,
  );
  // Only names and reasons: the issues never carry the values, so a wrong secret is not printed.
  const lines = parsed.success
    ? []
    : parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
  if (typeof secret !== 'string') lines.push(`  ${secret.variable}: ${secret.message}`);
  if (!parsed.success || typeof secret !== 'string') {
    throw new Error(`Invalid proxy configuration:\n${lines.join('\n')}`);
  }
  return { ...parsed.data, clientSecret: new Secret(secret) };
}

/** Configuration for tests and tools: defaults plus overrides, without reading process.env. */
export function configFor(overrides: Record<string, string>): ProxyConfig {
  return loadConfig(overrides);
}
