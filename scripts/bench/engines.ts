/**
 * The scale-out engines for the bench's scaled parts (BENCH_BACKEND=postgres, BENCH_ONLY=scaled|nginx):
 * a PostgreSQL database of its own on the machine's server, a local s3rver with a bucket of its own,
 * and a key prefix of its own on the machine's Redis. `dispose` removes all three, so a run leaves
 * nothing behind (other people's tests use the same PostgreSQL and Redis at the same time).
 *
 * The CPU those engines spend for the platform is read like the platform's own (/proc/PID/stat): the
 * PostgreSQL backends serving this database (found by their process title, which names it), s3rver,
 * and the Redis server, which is shared: its figure holds whatever else used it meanwhile.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { cpuTicks, stopAll } from './common';

const postgresUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** s3rver's built-in account. */
const s3Account = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface Engines {
  /** The platform's environment for these engines; instances given the same env share them. */
  env: Record<string, string>;
  /** CPU ticks the engines have spent so far: PostgreSQL backends of this database, s3rver, Redis. */
  ticks(): { postgres: number; s3rver: number; redis: number };
  dispose(): Promise<void>;
}

async function adminQuery(statement: string) {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    return await client.query<Record<string, unknown>>(statement);
  } finally {
    await client.end();
  }
}

/** s3rver with the test set-up's mends (src/platform/testing/s3rver-process.ts); answers its port. */
function startS3rver(directory: string, children: ChildProcess[]) {
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', '--import', 'tsx', 'src/platform/testing/s3rver-process.ts', directory],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const port = new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString();
      if (output.includes('\n')) resolve((JSON.parse(output.split('\n')[0]!) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening`)));
  });
  return { child, port };
}

/**
 * A process's CPU ticks as a running total that survives the process ending: PostgreSQL backends
 * come and go with the pool, so their last reading is kept (sampled every 100 ms while measuring).
 */
function processFamily(find: () => number[]) {
  const last = new Map<number, number>();
  let gone = 0;
  const sample = () => {
    const alive = new Set(find());
    for (const pid of alive) {
      try {
        last.set(pid, cpuTicks(pid));
      } catch {
        alive.delete(pid);
      }
    }
    for (const [pid, ticks] of last)
      if (!alive.has(pid)) {
        gone += ticks;
        last.delete(pid);
      }
    let total = gone;
    for (const ticks of last.values()) total += ticks;
    return total;
  };
  const timer = setInterval(sample, 100);
  timer.unref();
  return { ticks: sample, stop: () => clearInterval(timer) };
}

/**
 * PostgreSQL backends serving `database`: their title is "postgres: [CLUSTER: ]USER DATABASE
 * HOST(PORT) STATE" (Debian's servers name their cluster, "15/main: ").
 */
function backendsOf(database: string) {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(join('/proc', entry, 'cmdline'), 'utf8');
      if (/^postgres: (?:\S+: )?\S+ (\S+) /.exec(title)?.[1] === database) pids.push(Number(entry));
    } catch {
      // Ended while listing.
    }
  }
  return pids;
}

/**
 * Starts the engines; `work` is the calling part's own temporary folder (s3rver keeps the bucket in
 * it). Ctrl-C meanwhile still drops the database and the keys, and removes `work`.
 */
export async function startEngines(work: string, children: ChildProcess[]): Promise<Engines> {
  const id = randomBytes(5).toString('hex');
  const database = `bench_scaled_${id}`;
  const prefix = `bench:${id}:`;
  const bucket = `bench-${id}`;
  await adminQuery(`create database ${database}`);
  const s3 = startS3rver(join(work, 's3'), children);
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const removeShared = async () => {
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>)
      if (keys.length > 0) await redis.unlink(...keys);
    redis.disconnect();
    await adminQuery(`drop database if exists ${database} with (force)`);
  };
  // Ctrl-C reaches the bench's programs too (one process group); once they have stopped, nothing
  // writes to the database or Redis any more.
  const interrupted = () => {
    void stopAll(children)
      .then(removeShared)
      .finally(() => {
        rmSync(work, { recursive: true, force: true });
        process.exit(130);
      });
  };
  process.once('SIGINT', interrupted);
  try {
    const endpoint = `http://127.0.0.1:${await s3.port}`;
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      credentials: s3Account,
      forcePathStyle: true,
    });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    client.destroy();
    const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))![1]);
    const databaseUrl = new URL(postgresUrl);
    databaseUrl.pathname = `/${database}`;
    const postgres = processFamily(() => backendsOf(database));
    return {
      env: {
        DATABASE_URL: databaseUrl.toString(),
        BLOB_STORE: 's3',
        S3_ENDPOINT: endpoint,
        S3_REGION: 'us-east-1',
        S3_BUCKET: bucket,
        S3_ACCESS_KEY_ID: s3Account.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3Account.secretAccessKey,
        S3_FORCE_PATH_STYLE: '1',
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: prefix,
        // Instances sharing the engines share the key of signed URLs too (deploy/platform.env.example).
        SIGNING_KEY: randomBytes(32).toString('base64url'),
      },
      ticks: () => ({
        postgres: postgres.ticks(),
        s3rver: cpuTicks(s3.child.pid!),
        redis: cpuTicks(redisPid),
      }),
      dispose: async () => {
        process.off('SIGINT', interrupted);
        postgres.stop();
        await stopAll([s3.child]);
        await removeShared();
      },
    };
  } catch (error) {
    process.off('SIGINT', interrupted);
    await stopAll([s3.child]);
    await removeShared();
    throw error;
  }
}
