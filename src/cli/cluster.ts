import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { nginxBinary, nginxConfig } from './nginx-config';
import { defaultRestartPolicy } from './restart-backoff';
import { type Probe, watchRotation } from './rotation';
import { createSupervisor } from './supervisor';
import { buildWebAppIfNeeded } from './web-build';

/**
 * `npm run cluster`: the platform as several instances behind nginx, on PostgreSQL, an S3 bucket and
 * Redis, on one machine, for trying the scale-out set-up (docs/deploy.md). The engines are the
 * machine's own (PostgreSQL and Redis from Debian's packages); without S3_ENDPOINT a local s3rver
 * stands in for the bucket. Then the web app's proxy, pointed at nginx. Ctrl-C stops everything.
 * An instance that stops, whatever the reason, is started again (with a growing wait while it keeps
 * stopping: restart-backoff.ts) while the others keep serving; an instance whose /readyz fails is
 * taken out of nginx's rotation until it passes again (rotation.ts). `.cluster/cluster.json` says
 * where everything listens, each instance's current pid and whether it is in rotation.
 *
 * `--no-web` leaves the proxy out (the multi-instance test uses the platform's API only).
 */
const withWeb = !process.argv.includes('--no-web');
const clusterDir = resolve(process.env.CLUSTER_DIR ?? '.cluster');
const instances = Number(process.env.CLUSTER_INSTANCES ?? '2');
const nginxPort = Number(process.env.CLUSTER_PORT ?? '8080');
const publicUrl = `http://127.0.0.1:${nginxPort}`;
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/asset_manager_cluster';
const webHost = process.env.WEB_HOST ?? '127.0.0.1';
const webPort = Number(process.env.WEB_PORT ?? '5173');
const webUrl = process.env.WEB_PUBLIC_URL ?? `http://${webHost}:${webPort}`;
/** The local S3 server's port; 0: any free one. */
const s3Port = Number(process.env.CLUSTER_S3_PORT ?? '0');

if (!Number.isInteger(instances) || instances < 1 || instances > 16) {
  console.error('CLUSTER_INSTANCES must be a whole number from 1 to 16.');
  process.exit(1);
}
if (!Number.isInteger(s3Port) || s3Port < 0 || s3Port > 65_535) {
  console.error('CLUSTER_S3_PORT must be a port number (0: any free one).');
  process.exit(1);
}

/** The state a cluster keeps between runs, generated at the first: the instances must share it. */
function signingKey(): string {
  if (process.env.SIGNING_KEY) return process.env.SIGNING_KEY;
  const file = join(clusterDir, 'signing-key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** The database in DATABASE_URL, created on the same server when it does not exist yet. */
async function ensureDatabase() {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  admin.search = '';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount === 0) await client.query(`create database ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

const programs = createSupervisor({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });

/**
 * The bucket: S3_* as given, or a local s3rver (npm's S3 test server) with its files in the cluster's
 * folder, run as the tests run it (src/platform/testing/s3rver-process.ts: the S3 operations s3rver
 * lacks, and its other faults, mended there and never in the platform's S3 code).
 */
async function bucketEnv(): Promise<NodeJS.ProcessEnv> {
  if (process.env.S3_ENDPOINT) return { BLOB_STORE: 's3' };
  const directory = join(clusterDir, 's3');
  mkdirSync(directory, { recursive: true });
  const child = programs.start({
    name: 's3rver',
    args: [
      '--openssl-legacy-provider',
      '--import',
      'tsx',
      'src/platform/testing/s3rver-process.ts',
      directory,
      String(s3Port),
    ],
    essential: true,
    stdout: 'pipe',
  });
  const port = await new Promise<number>((resolvePort, reject) => {
    let output = '';
    child.stdout!.on('data', (data: Buffer) => {
      output += data.toString();
      if (output.includes('\n')) resolvePort((JSON.parse(output.split('\n')[0]!) as { port: number }).port);
    });
    child.once('exit', () => reject(new Error('s3rver stopped before it listened')));
  });
  const env = {
    BLOB_STORE: 's3',
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_REGION: 'us-east-1',
    S3_BUCKET: 'asset-manager',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: '1',
  };
  const client = new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY },
    forcePathStyle: true,
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: env.S3_BUCKET }));
  } catch (error) {
    // Made by an earlier run: its files are in the same folder.
    if (
      (error as Error).name !== 'BucketAlreadyOwnedByYou' &&
      (error as Error).name !== 'BucketAlreadyExists'
    )
      throw error;
  } finally {
    client.destroy();
  }
  return env;
}

async function main() {
  mkdirSync(join(clusterDir, 'nginx'), { recursive: true });
  if (withWeb) buildWebAppIfNeeded();
  await ensureDatabase();
  const shared = await sharedEnv();
  let ready = false;
  // A restarted instance's new pid is written at once, once cluster.json is there.
  const members = await startInstances(shared, () => {
    if (ready) nginx.writeState();
  });
  const nginx = await startNginx(members);
  if (withWeb) await startProxy();
  if (programs.isStopping()) return;

  ready = true;
  nginx.writeState();
  watchRotation({ members, apply: nginx.applyRotation });
  printSummary(members, shared, nginx.accessLog);
}

/** What every instance shares: the database, Redis, the signing key, the bucket and the URLs. */
async function sharedEnv(): Promise<NodeJS.ProcessEnv> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    SIGNING_KEY: signingKey(),
    PLATFORM_HOST: '127.0.0.1',
    PLATFORM_PUBLIC_URL: publicUrl,
    TRUST_PROXY: '127.0.0.1',
    WEB_PUBLIC_URL: webUrl,
    DEMO_SEED: process.env.DEMO_SEED ?? '1',
    ...(await bucketEnv()),
  };
}

/**
 * The platform instances, started again when they stop (`restarted` is told of each new process),
 * answered once all are ready.
 */
async function startInstances(shared: NodeJS.ProcessEnv, restarted: () => void) {
  /** Each instance as it is now: its current process (a restart replaces it), in rotation or not. */
  const members: Instance[] = [];
  for (let i = 1; i <= instances; i++) {
    const port = nginxPort + i;
    const member: Instance = {
      name: `instance ${i}`,
      url: `http://127.0.0.1:${port}`,
      port,
      inRotation: true,
    };
    members.push(member);
    member.child = programs.start({
      name: member.name,
      args: ['--import', 'tsx', 'src/platform/main.ts'],
      env: { ...shared, PLATFORM_PORT: String(port), DATA_DIR: join(clusterDir, `instance-${i}`) },
      essential: false,
      restart: defaultRestartPolicy,
      onStart: (child) => {
        member.child = child;
        // Whatever reads the pids (an operator's kill, a test) sees the new one at once.
        restarted();
      },
    });
    // The first one migrates and seeds; the others then start side by side.
    if (i === 1)
      await programs.waitFor(`${member.url}/readyz`, member.name, { seconds: 120, child: member.child });
  }
  await Promise.all(
    members.map(({ url, name, child }) => programs.waitFor(`${url}/readyz`, name, { seconds: 120, child })),
  );
  return members;
}

/**
 * nginx in front of the instances, answered once it listens: its configuration (a new generation
 * at each change of rotation) and cluster.json, which says where everything is.
 */
async function startNginx(members: Instance[]) {
  const nginxPrefix = join(clusterDir, 'nginx');
  const nginxConf = join(nginxPrefix, 'nginx.conf');
  let generation = 1;
  const writeNginxConfig = () =>
    writeFileSync(
      nginxConf,
      nginxConfig(
        nginxPrefix,
        [
          {
            port: nginxPort,
            instances: members.map(({ port }) => port),
            down: members.filter(({ inRotation }) => !inRotation).map(({ port }) => port),
          },
        ],
        { accessLog: true, generation },
      ),
    );
  writeNginxConfig();
  const nginx = programs.start({
    name: 'nginx',
    command: nginxBinary(),
    args: ['-p', nginxPrefix, '-c', nginxConf, '-e', join(nginxPrefix, 'error.log')],
    essential: true,
  });
  await programs.waitFor(`${publicUrl}/healthz`, 'nginx', { child: nginx });

  /** Where everything listens, for scripts and tests that drive the cluster (and kill an instance). */
  function writeState() {
    const state = {
      nginx: publicUrl,
      web: withWeb ? webUrl : null,
      nginxGeneration: generation,
      instances: members.map(({ name, url, child, inRotation }) => ({
        name,
        url,
        pid: child?.pid,
        inRotation,
      })),
    };
    // Renamed into place: a reader never sees half of it.
    const file = join(clusterDir, 'cluster.json');
    writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
  }

  /** nginx with the new rotation: rewritten, reloaded (SIGHUP), and answering with it. */
  async function applyRotation(inRotation: boolean[], probes: Probe[]) {
    const noneReady = probes.every(({ state }) => state !== 'ready');
    members.forEach((member, i) => {
      if (member.inRotation === inRotation[i]) return;
      member.inRotation = inRotation[i]!;
      console.error(
        member.inRotation
          ? `${member.name} back in nginx's rotation (${noneReady ? "no instance is ready: all kept in, so that clients get their 503 with Retry-After rather than nginx's 502" : probes[i]!.said}).`
          : `${member.name} out of nginx's rotation: ${probes[i]!.said}.`,
      );
    });
    generation++;
    writeNginxConfig();
    nginx.kill('SIGHUP');
    const deadline = Date.now() + 30_000;
    while (!(await nginxServes(generation))) {
      if (programs.isStopping()) return;
      if (Date.now() > deadline) {
        console.error(
          `nginx did not load its new configuration within 30 s: see ${join(nginxPrefix, 'error.log')}.`,
        );
        break;
      }
      await new Promise((done) => setTimeout(done, 100));
    }
    writeState();
  }

  return { writeState, applyRotation, accessLog: join(nginxPrefix, 'access.log') };
}

const nginxServes = (expected: number) =>
  fetch(`${publicUrl}/_cluster/generation`).then(
    async (answer) => (await answer.text()) === String(expected),
    () => false,
  );

/** The token-exchange proxy serving the web app, answered once it serves its settings. */
async function startProxy() {
  programs.start({
    name: 'proxy',
    args: ['--import', 'tsx', 'src/proxy/main.ts'],
    env: {
      WEB_HOST: webHost,
      WEB_PORT: String(webPort),
      WEB_PUBLIC_URL: webUrl,
      PLATFORM_BASE_URL: publicUrl,
      OAUTH_CLIENT_SECRET_FILE:
        process.env.OAUTH_CLIENT_SECRET_FILE ?? join(clusterDir, 'instance-1', 'web-client.json'),
    },
    essential: true,
  });
  await programs.waitFor(`${webUrl}/app-config.json`, 'The web app');
}

function printSummary(members: Instance[], shared: NodeJS.ProcessEnv, accessLog: string) {
  console.log(`
  Asset Manager cluster: ${instances} platform instance${instances === 1 ? '' : 's'} behind nginx
  ${withWeb ? `Open ${webUrl}` : 'No web app (--no-web)'}
  Platform through nginx: ${publicUrl} (access log: ${accessLog})
${members.map(({ name, url, child }) => `    ${name}: ${url} (pid ${child?.pid})`).join('\n')}
  PostgreSQL: ${new URL(databaseUrl).host}${new URL(databaseUrl).pathname}   Redis: ${shared.REDIS_URL}   Bucket: ${shared.S3_ENDPOINT ?? process.env.S3_ENDPOINT}
  An instance that stops is started again; one whose /readyz fails leaves nginx's rotation until it passes.
  Where everything is, and each instance's pid: ${join(clusterDir, 'cluster.json')}
  Press Ctrl-C to stop.
`);
}

interface Instance {
  name: string;
  url: string;
  port: number;
  /** Its current process; a restart replaces it. */
  child?: ChildProcess;
  inRotation: boolean;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  programs.stop(1);
});
