import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestPlatform } from './platform-server';
import { freshPostgresSchema, type TestSchema } from './postgres';
import { removeRedisKeys, testRedisEnv } from './redis';
import { s3TestEnv } from './s3';
import { pollUntil } from './thumbnails';

/** `.cluster/cluster.json` as `npm run cluster` writes it (src/cli/cluster.ts). */
export interface ClusterState {
  nginx: string;
  /** Goes up with each configuration nginx has loaded (each change of rotation). */
  nginxGeneration: number;
  instances: { name: string; url: string; pid: number; inRotation: boolean }[];
}

/**
 * A run of `length` free ports: nginx, then the instances, listen on consecutive ports. Drawn from
 * TEST_PORTS (`21000-21999`) when set, so that several test runs on one machine keep apart.
 */
async function freePortRun(length: number): Promise<number> {
  const [low, high] = (process.env.TEST_PORTS ?? '20000-50000').split('-').map(Number) as [number, number];
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const start = low + Math.floor(Math.random() * (high - low - length));
    const ports = Array.from({ length }, (_, i) => start + i);
    if ((await Promise.all(ports.map(free))).every(Boolean)) return start;
  }
}

export interface TestCluster {
  dir: string;
  /** Everything the instances were given: their database, bucket and Redis. */
  env: Record<string, string>;
  /** `npm run cluster`'s own process (the supervisor). */
  program: ChildProcess;
  /** cluster.json as it is now. */
  state(): ClusterState;
  /** nginx's access log as it is now. */
  accessLog(): string;
  /** What the instances wrote on their standard output (their JSON log lines) so far. */
  instanceLog(): string;
  /** The web app's client, made by the first instance's demo data. */
  webClient: TestPlatform['webClient'];
  /** `url` (nginx or an instance) as the sign-in helpers take a platform: its address and client. */
  at(url: string): TestPlatform;
  stop(): Promise<void>;
}

/**
 * `npm run cluster --no-web` as its own process, on a fresh PostgreSQL schema, a bucket of the
 * tests' S3 server and a Redis key prefix of its own, once it has written cluster.json (everything
 * started).
 */
export async function startCluster(
  instances: number,
  extraEnv: Record<string, string> = {},
): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'cluster-test-'));
  const schema: TestSchema = await freshPostgresSchema();
  const env: Record<string, string> = {
    DATABASE_URL: schema.url,
    ...(await s3TestEnv()),
    ...testRedisEnv(),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  // The instances' log lines (they inherit the program's standard output), for a failure to show.
  const log = openSync(join(dir, 'instances.log'), 'a');
  const program = spawn(process.execPath, ['--import', 'tsx', 'src/cli/cluster.ts', '--no-web'], {
    env: {
      ...process.env,
      ...env,
      CLUSTER_DIR: dir,
      CLUSTER_PORT: String(await freePortRun(instances + 1)),
      CLUSTER_INSTANCES: String(instances),
    },
    stdio: ['ignore', log, 'inherit'],
  });
  closeSync(log);
  const stateFile = join(dir, 'cluster.json');
  const state = () => JSON.parse(readFileSync(stateFile, 'utf8')) as ClusterState;
  const stop = async () => {
    if (program.exitCode === null && program.signalCode === null) {
      const stopped = new Promise((resolve) => program.once('exit', resolve));
      program.kill('SIGTERM');
      await stopped;
    }
    await schema.drop();
    await removeRedisKeys(env.REDIS_KEY_PREFIX!);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Instances started one after the other, then nginx: minutes on a busy machine.
    await pollUntil(
      'the cluster to start',
      () => {
        if (program.exitCode !== null) throw new Error(`npm run cluster exited (${program.exitCode})`);
        return existsSync(stateFile) ? true : undefined;
      },
      240_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const webClient = JSON.parse(
    readFileSync(join(dir, 'instance-1', 'web-client.json'), 'utf8'),
  ) as TestPlatform['webClient'];
  return {
    dir,
    env,
    program,
    state,
    accessLog: () => readFileSync(join(dir, 'nginx', 'access.log'), 'utf8'),
    instanceLog: () => readFileSync(join(dir, 'instances.log'), 'utf8'),
    webClient,
    at: (url) => ({ url, webClient }) as TestPlatform,
    stop,
  };
}

/**
 * The instance that answered each request of nginx's access log, by request id (the `rid=` nginx
 * made, which the platform answers in `X-Request-Id`): the last address of `$upstream_addr`, which
 * lists each one tried.
 */
export function answeredBy(accessLog: string): Map<string, string> {
  const answered = new Map<string, string>();
  for (const line of accessLog.split('\n')) {
    const rid = / rid=(\w+) upstream=/.exec(line)?.[1];
    const tried = line.slice(line.indexOf(' upstream=')).match(/\d+\.\d+\.\d+\.\d+:\d+/g);
    if (rid && tried) answered.set(rid, tried.at(-1)!);
  }
  return answered;
}
