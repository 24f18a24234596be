import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildPlatform, type PlatformOptions } from '../composition/app';
import { webClientId } from '../cli/demo-seed';
import { configFor, type PlatformConfig } from '../config/env';
import { createClient } from '../oauth/clients';
import { openDatabase } from '../db/database';
import { browser, hiddenFields, type Browser } from './http-client';
import { sharedBackend, testBackend } from './backends';
import { removeRedisKeys } from './redis';

export const demoPassword = 'demo-password';
export const webRedirectUri = 'http://127.0.0.1:5173/auth/callback';

export interface TestPlatform {
  app: FastifyInstance;
  url: string;
  config: PlatformConfig;
  dataDir: string;
  webClient: { client_id: string; client_secret: string };
  /** Moves the platform's clock forward. */
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface StartOptions extends Pick<PlatformOptions, 'logger' | 'thumbnailHooks'> {
  /**
   * A second instance of that platform: its own data directory and port, the same database and the
   * same Redis keys (testing/backends.ts). Close it before the platform it shares.
   */
  shareWith?: TestPlatform;
}

/**
 * A real platform on a real port with a fresh data directory and the demo data. Silent unless a
 * test passes a logger (to read what the platform logs). Its database, files and shared state are
 * on the backends of the test run (testing/backends.ts): the embedded ones, or fresh ones on the
 * scale-out engines, removed at close.
 */
export async function startPlatform(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<TestPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  const shared = options.shareWith;
  // A second instance: the first one's database, Redis keys and files; the first one removes them.
  const backend = shared ? sharedBackend(shared) : await testBackend();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = configFor({
    DATA_DIR: dataDir,
    PLATFORM_PORT: String(port),
    PLATFORM_PUBLIC_URL: url,
    DEMO_SEED: '1',
    LOG_LEVEL: 'silent',
    // Tests run on busy machines too: PDF renders at the lowest priority would wait behind any other
    // work there, and go without a thumbnail past their time limit.
    PDF_THUMBNAIL_LOW_PRIORITY: '0',
    ...backend.env,
    ...env,
  });
  let offset = 0;
  let app: Awaited<ReturnType<typeof buildPlatform>> | undefined;
  try {
    app = await buildPlatform(config, {
      clock: () => Date.now() + offset,
      logger: options.logger ?? false,
      thumbnailHooks: options.thumbnailHooks,
    });
    await app.listen({ host: '127.0.0.1', port });
  } catch (error) {
    // A platform that does not start (tests of bad settings) leaves no schema or files behind.
    await app?.close();
    await backend.dispose();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  // A second instance finds the database seeded, so the web client's secret is the first one's.
  const webClient =
    shared?.webClient ??
    (JSON.parse(readFileSync(join(dataDir, 'web-client.json'), 'utf8')) as TestPlatform['webClient']);
  return {
    app,
    url,
    config,
    dataDir,
    webClient,
    advance: (ms) => {
      offset += ms;
    },
    close: async () => {
      await app.close();
      await backend.dispose();
      rmSync(dataDir, { recursive: true, force: true });
      if (config.redis && !shared) await removeRedisKeys(config.redis.keyPrefix);
    },
  };
}

/** Registers one more OAuth client directly in the platform's database. */
export async function addClient(
  platform: TestPlatform,
  redirectUris = ['http://127.0.0.1:9999/cb'],
  name = 'Other App',
) {
  const db = await openDatabase(platform.config);
  try {
    return await createClient(db, { name, redirectUris });
  } finally {
    await db.destroy();
  }
}

export interface AuthorizeOptions {
  clientId?: string;
  redirectUri?: string;
  state?: string;
  scope?: string;
  codeChallenge?: string;
  email?: string;
  password?: string;
  decision?: 'allow' | 'deny';
  browser?: Browser;
}

export function authorizeUrl(platform: TestPlatform, params: Record<string, string>) {
  return `${platform.url}/auth/login/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

/**
 * Runs the browser part of the flow over plain HTTP: authorize, sign in, consent.
 * Answers the final redirect's URL (with `code` or `error`).
 */
export async function authorizeThroughPages(
  platform: TestPlatform,
  options: AuthorizeOptions = {},
): Promise<URL> {
  const b = options.browser ?? browser();
  const params: Record<string, string> = {
    client_id: options.clientId ?? webClientId,
    redirect_uri: options.redirectUri ?? webRedirectUri,
    state: options.state ?? 'state-123',
    scope: options.scope ?? 'full',
    ...(options.codeChallenge
      ? { code_challenge: options.codeChallenge, code_challenge_method: 'S256' }
      : {}),
  };
  let response = await b.get(authorizeUrl(platform, params));
  let html = await response.text();
  if (html.includes('name="password"')) {
    response = await b.postForm(`${platform.url}/auth/login`, {
      ...hiddenFields(html),
      email: options.email ?? 'investor@demo.test',
      password: options.password ?? demoPassword,
    });
    if (response.status !== 303) throw new Error(`sign-in failed with ${response.status}`);
    response = await b.get(new URL(response.headers.get('location')!, platform.url).toString());
    html = await response.text();
  }
  if (html.includes('name="decision"')) {
    response = await b.postForm(`${platform.url}/auth/login/oauth/authorize`, {
      ...hiddenFields(html),
      decision: options.decision ?? 'allow',
    });
  }
  const location = response.headers.get('location');
  if (!location) throw new Error(`expected a redirect, got ${response.status}: ${html.slice(0, 200)}`);
  return new URL(location);
}

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
  scope: string;
}

/** Exchanges a code in the spec's own shape: JSON body, grant_type in the query. */
export async function exchangeCodeJson(platform: TestPlatform, body: Record<string, unknown>) {
  return fetch(`${platform.url}/v2/core/oauth/token?grant_type=authorization_code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: platform.webClient.client_id,
      client_secret: platform.webClient.client_secret,
      ...body,
    }),
  });
}

export async function postForm(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** Signs a demo user in through the pages and the spec's token request; answers their tokens. */
export async function tokensFor(
  platform: TestPlatform,
  email = 'investor@demo.test',
  scope = 'full',
): Promise<TokenSet> {
  const redirect = await authorizeThroughPages(platform, { email, scope, state: 's1' });
  const response = await exchangeCodeJson(platform, { code: redirect.searchParams.get('code'), state: 's1' });
  if (response.status !== 200)
    throw new Error(`token exchange failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as TokenSet;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
