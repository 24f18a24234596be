/**
 * Peer-1 of `npm run bench:peers`: our sign-in and token endpoints against panva's oidc-provider
 * (scripts/bench/peers/oidc-provider-server.ts), both persisting to SQLite in WAL with
 * synchronous = FULL, both hashing passwords with the platform's scrypt parameters.
 *   refresh  refresh-grant requests (rotating the refresh token each time) from 8 loops, each with
 *            its own token family: req/s and server CPU per request
 *   sign-in  the whole flow of a browser that has never signed in, for a user who has never
 *            consented: authorize → sign-in page → password → consent → code → token; time and
 *            server CPU per flow (a fresh user each time, so that consent is asked in both)
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cpuTicks,
  type Load,
  median,
  roundRatios,
  startBenchPlatform,
  startNode,
  tickMicros,
  waitFor,
} from './common';
import { benchClient, benchPassword } from './peers/bench-client';
import type { PeerRow } from './peers';

/** One side of the comparison: where its endpoints are, its client, its users. */
interface Side {
  pid: number;
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  password: string;
  /** The email of the n-th user who has never signed in. */
  user(n: number): string;
}

const unescapeHtml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** A browser with one cookie jar for one host, following redirects by hand so that it sees the code. */
class Browser {
  private readonly cookies = new Map<string, string>();

  async request(url: string, init: { method?: string; form?: URLSearchParams } = {}) {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = new URL(url).origin;
    }
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      body: init.form?.toString(),
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const expired = attributes.some(
        (a) =>
          /^\s*max-age=0/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()),
      );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      location: location ? new URL(location, url).href : undefined,
      text: await response.text(),
    };
  }
}

/** The form of a page: where it posts and its hidden fields. */
function formOf(html: string, pageUrl: string) {
  const action = /<form[^>]*action="([^"]*)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form on ${pageUrl}: ${html.slice(0, 300)}`);
  const fields = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields.append(unescapeHtml(name!), unescapeHtml(value!));
  return {
    action: new URL(unescapeHtml(action), pageUrl).href,
    fields,
    asksPassword: /type="password"/.test(html),
  };
}

/** The whole flow for a user who never signed in; answers the access and refresh tokens. */
async function signIn(side: Side, email: string) {
  const browser = new Browser();
  const state = Math.random().toString(36).slice(2);
  let url: string | undefined =
    `${side.authorizeUrl}?client_id=${side.clientId}&response_type=code&scope=full&state=${state}` +
    `&redirect_uri=${encodeURIComponent(side.redirectUri)}`;
  let answer = await browser.request(url);
  for (let steps = 0; steps < 20; steps++) {
    if (answer.location?.startsWith(side.redirectUri)) {
      const code = new URL(answer.location).searchParams.get('code');
      if (!code) throw new Error(`no code: ${answer.location}`);
      const response = await fetch(side.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: side.redirectUri,
          client_id: side.clientId,
          client_secret: side.clientSecret,
        }).toString(),
      });
      const tokens = (await response.json()) as { access_token?: string; refresh_token?: string };
      if (!tokens.access_token || !tokens.refresh_token)
        throw new Error(`token exchange answered ${response.status}: ${JSON.stringify(tokens)}`);
      return tokens as { access_token: string; refresh_token: string };
    }
    if (answer.location) {
      url = answer.location;
      answer = await browser.request(url);
      continue;
    }
    if (answer.status !== 200)
      throw new Error(`${url} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    const form = formOf(answer.text, url!);
    if (form.asksPassword) {
      form.fields.set('email', email);
      form.fields.set('password', side.password);
    } else form.fields.set('decision', 'allow');
    url = form.action;
    answer = await browser.request(url, { method: 'POST', form: form.fields });
  }
  throw new Error('the sign-in flow did not end');
}

/** Refresh-grant requests from `families.length` loops for `ms`; each loop keeps its own family going. */
async function refreshLoad(side: Side, families: string[], ms = 3000): Promise<Load> {
  const ticks = cpuTicks(side.pid);
  const until = performance.now() + ms;
  let requests = 0;
  await Promise.all(
    families.map(async (_, i) => {
      while (performance.now() < until) {
        const response = await fetch(side.tokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: families[i]!,
            client_id: side.clientId,
            client_secret: side.clientSecret,
          }).toString(),
        });
        const body = (await response.json()) as { refresh_token?: string };
        if (response.status !== 200 || !body.refresh_token)
          throw new Error(`refresh answered ${response.status}: ${JSON.stringify(body)}`);
        families[i] = body.refresh_token;
        requests++;
      }
    }),
  );
  return {
    perSecond: requests / (ms / 1000),
    cpuMicrosPerRequest: ((cpuTicks(side.pid) - ticks) * tickMicros) / requests,
  };
}

/** Sign-in flows one after another: the time of one and the server's CPU per flow. */
async function signInLoad(side: Side, emails: string[]): Promise<Load & { ms: number }> {
  const ticks = cpuTicks(side.pid);
  const started = performance.now();
  for (const email of emails) await signIn(side, email);
  const ms = (performance.now() - started) / emails.length;
  return {
    ms,
    perSecond: 1000 / ms,
    cpuMicrosPerRequest: ((cpuTicks(side.pid) - ticks) * tickMicros) / emails.length,
  };
}

/** Users who never signed in, made with the platform's admin command (it may run beside the server). */
function addOurUsers(dataDir: string, port: number, emails: string[], password: string) {
  for (const email of emails) {
    const made = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/platform/main.ts',
        'users',
        'add',
        '--email',
        email,
        '--role',
        'issuer',
        '--password',
        password,
      ],
      {
        env: { ...process.env, DATA_DIR: dataDir, PLATFORM_PORT: String(port), LOG_LEVEL: 'warn' },
        encoding: 'utf8',
      },
    );
    if (made.status !== 0) throw new Error(`users add ${email}: ${made.stderr}`);
  }
}

export async function benchSignIn(
  work: string,
  children: ChildProcess[],
  rounds: number,
): Promise<PeerRow[]> {
  const flowsPerRound = 2;
  const users = 2 + rounds * flowsPerRound;
  const password = benchPassword;
  const ours = await startBenchPlatform(work, 4930, {}, children);
  const emails = Array.from({ length: users }, (_, i) => `user${i}@bench.test`);
  addOurUsers(ours.dataDir, 4930, emails, password);
  const client = JSON.parse(readFileSync(join(ours.dataDir, 'web-client.json'), 'utf8')) as {
    client_secret: string;
  };
  const oursSide: Side = {
    pid: ours.pid,
    authorizeUrl: `${ours.platformUrl}/auth/login/oauth/authorize`,
    tokenUrl: `${ours.platformUrl}/v2/core/oauth/token`,
    clientId: 'asset-manager',
    clientSecret: client.client_secret,
    redirectUri: 'http://127.0.0.1:5173/auth/callback',
    password,
    user: (n) => emails[n]!,
  };

  const peerDir = join(work, 'oidc-provider');
  mkdirSync(peerDir);
  const peer = startNode(children, [
    'scripts/bench/peers/oidc-provider-server.ts',
    '4931',
    peerDir,
    String(users),
  ]);
  await waitFor('http://127.0.0.1:4931/.well-known/openid-configuration');
  const peerSide: Side = {
    pid: peer.pid!,
    authorizeUrl: 'http://127.0.0.1:4931/auth',
    tokenUrl: 'http://127.0.0.1:4931/token',
    clientId: benchClient.client_id,
    clientSecret: benchClient.client_secret,
    redirectUri: benchClient.redirect_uri,
    password: benchPassword,
    user: (n) => `user${n}@bench.test`,
  };

  // Sign-in flows, interleaved; the first of each side warms it up (JIT, statements) and is not counted.
  let next = 0;
  const nextUsers = (side: Side, count: number) =>
    Array.from({ length: count }, (_, i) => side.user(next + i));
  await signInLoad(oursSide, nextUsers(oursSide, 1));
  await signInLoad(peerSide, nextUsers(peerSide, 1));
  next++;
  const oursFlows: (Load & { ms: number })[] = [];
  const peerFlows: (Load & { ms: number })[] = [];
  for (let i = 0; i < rounds; i++) {
    peerFlows.push(await signInLoad(peerSide, nextUsers(peerSide, flowsPerRound)));
    oursFlows.push(await signInLoad(oursSide, nextUsers(oursSide, flowsPerRound)));
    next += flowsPerRound;
  }

  // Refresh: 8 token families on each side (sign-ins of the same user, consent remembered).
  const familiesOf = async (side: Side) => {
    const families: string[] = [];
    // One after another: our sign-in limiter holds back a burst of sign-ins to one account (H3).
    for (let i = 0; i < 8; i++) families.push((await signIn(side, side.user(next))).refresh_token);
    return families;
  };
  const oursFamilies = await familiesOf(oursSide);
  const peerFamilies = await familiesOf(peerSide);
  await refreshLoad(oursSide, oursFamilies, 1000);
  await refreshLoad(peerSide, peerFamilies, 1000);
  const oursRefresh: Load[] = [];
  const peerRefresh: Load[] = [];
  for (let i = 0; i < rounds; i++) {
    peerRefresh.push(await refreshLoad(peerSide, peerFamilies));
    oursRefresh.push(await refreshLoad(oursSide, oursFamilies));
  }

  const rate = (loads: Load[]) => median(loads.map((l) => l.perSecond));
  const cpu = (loads: Load[]) => median(loads.map((l) => l.cpuMicrosPerRequest));
  const ms = (flows: { ms: number }[]) => median(flows.map((f) => f.ms));
  return [
    {
      id: 'Peer-1',
      measure: 'refresh grant, req/s (8 loops)',
      ours: rate(oursRefresh).toFixed(0),
      peer: `oidc-provider ${rate(peerRefresh).toFixed(0)}`,
      ...roundRatios(oursRefresh.map((o, i) => o.perSecond / peerRefresh[i]!.perSecond)),
      target: '≥ 1',
    },
    {
      id: 'Peer-1',
      measure: 'refresh grant, server CPU per request (µs): peer ÷ ours',
      ours: cpu(oursRefresh).toFixed(0),
      peer: `oidc-provider ${cpu(peerRefresh).toFixed(0)}`,
      ...roundRatios(oursRefresh.map((o, i) => peerRefresh[i]!.cpuMicrosPerRequest / o.cpuMicrosPerRequest)),
      target: '≥ 1',
    },
    {
      id: 'Peer-1',
      measure: 'sign-in flow with consent, time (ms): peer ÷ ours',
      ours: ms(oursFlows).toFixed(0),
      peer: `oidc-provider ${ms(peerFlows).toFixed(0)}`,
      ...roundRatios(oursFlows.map((o, i) => peerFlows[i]!.ms / o.ms)),
      target: '≥ 1',
    },
    {
      id: 'Peer-1',
      measure: 'sign-in flow with consent, server CPU per flow (ms): peer ÷ ours',
      ours: (cpu(oursFlows) / 1000).toFixed(0),
      peer: `oidc-provider ${(cpu(peerFlows) / 1000).toFixed(0)}`,
      ...roundRatios(oursFlows.map((o, i) => peerFlows[i]!.cpuMicrosPerRequest / o.cpuMicrosPerRequest)),
      target: '≥ 1',
    },
  ];
}
