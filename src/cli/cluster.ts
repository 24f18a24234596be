import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { nginxBinary, nginxConfig } from './nginx-config';
import { createSupervisor } from './supervisor';
import { buildWebAppIfNeeded } from './web-build';

/**
 * `npm run cluster`: the platform as several instances behind nginx, on PostgreSQL, an S3 bucket and
 * Redis, on one machine, for trying the scale-out set-up (docs/deploy.md). The engines are the
 * machine's own (PostgreSQL and Redis from Debian's packages); without S3_ENDPOINT a local s3rver
 * stands in for the bucket. Then the web app's proxy, pointed at nginx. Ctrl-C stops everything;
 * an instance that stops is reported and the others keep serving, as behind any load balancer.
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

if (!Number.isInteger(instances) || instances < 1 || instances > 16) {
  console.error('CLUSTER_INSTANCES must be a whole number from 1 to 16.');
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
  const shared: NodeJS.ProcessEnv = {
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

  const started: { name: string; url: string; child: ChildProcess }[] = [];
  for (let i = 1; i <= instances; i++) {
    const name = `instance ${i}`;
    const port = nginxPort + i;
    const url = `http://127.0.0.1:${port}`;
    const child = programs.start({
      name,
      args: ['--import', 'tsx', 'src/platform/main.ts'],
      env: { ...shared, PLATFORM_PORT: String(port), DATA_DIR: join(clusterDir, `instance-${i}`) },
      essential: false,
    });
    // The first one migrates and seeds; the others then start side by side.
    if (i === 1) await programs.waitFor(`${url}/healthz`, name, { seconds: 120, child });
    started.push({ name, url, child });
  }
  await Promise.all(
    started.map(({ url, name, child }) => programs.waitFor(`${url}/healthz`, name, { seconds: 120, child })),
  );

  const nginxConf = join(clusterDir, 'nginx', 'nginx.conf');
  writeFileSync(
    nginxConf,
    nginxConfig(
      join(clusterDir, 'nginx'),
      [{ port: nginxPort, instances: started.map(({ url }) => Number(new URL(url).port)) }],
      1,
      true,
    ),
  );
  const nginx = programs.start({
    name: 'nginx',
    command: nginxBinary(),
    args: ['-p', join(clusterDir, 'nginx'), '-c', nginxConf, '-e', join(clusterDir, 'nginx', 'error.log')],
    essential: true,
  });
  await programs.waitFor(`${publicUrl}/healthz`, 'nginx', { child: nginx });

  if (withWeb) {
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
  if (programs.isStopping()) return;

  // Where everything listens, for scripts and tests that drive the cluster (and kill an instance).
  writeFileSync(
    join(clusterDir, 'cluster.json'),
    `${JSON.stringify({ nginx: publicUrl, web: withWeb ? webUrl : null, instances: started.map(({ name, url, child }) => ({ name, url, pid: child.pid })) }, null, 2)}\n`,
  );
  console.log(`
  Asset Manager cluster: ${instances} platform instance${instances === 1 ? '' : 's'} behind nginx
  ${withWeb ? `Open ${webUrl}` : 'No web app (--no-web)'}
  Platform through nginx: ${publicUrl}
${started.map(({ name, url, child }) => `    ${name}: ${url} (pid ${child.pid})`).join('\n')}
  PostgreSQL: ${new URL(databaseUrl).host}${new URL(databaseUrl).pathname}   Redis: ${shared.REDIS_URL}   Bucket: ${shared.S3_ENDPOINT ?? process.env.S3_ENDPOINT}
  Press Ctrl-C to stop.
`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  programs.stop(1);
});
