import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from './platform-server';

const run = promisify(execFile);

/**
 * A real S3 server for the tests that s3rver cannot serve: Ceph's RADOS Gateway (Debian's `radosgw`,
 * `ceph-mon`, `ceph-osd`), on a throwaway one-node cluster — one monitor, one OSD keeping its objects
 * in memory (`memstore`), no manager, no authentication between them — made in a temporary folder
 * and gone at `stop`. It starts in about a second and holds ~150 MB.
 *
 * Why: `@tus/s3-store` reads an upload's offset with ListParts, which s3rver lacks; the gateway is
 * the one S3 implementation with it that installs from Debian's packages (MinIO and moto do not).
 * `.ci/run` installs it; docs/development.md says how on a development machine.
 *
 * The settings that make it work here, each found by trying: `ms mon client mode = crc secure` (the
 * gateway, as a daemon, insists on a secure link to the monitor, which no authentication cannot
 * give, and retries for ever otherwise); `paxos propose interval` near 0 (the monitor batches each
 * change for 1 s, and the gateway's first start makes several: 7 s instead of 1); a small request
 * thread pool (512 threads by default, for a test that sends a few requests at a time).
 */
export interface RadosGateway {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** A new, empty bucket; its name. */
  createBucket(): Promise<string>;
  /** The platform's settings to keep its files in `bucket` (BLOB_STORE=s3 and S3_*). */
  platformEnv(bucket: string): Record<string, string>;
  /** Kills the daemons and removes everything they kept. */
  stop(): Promise<void>;
}

const credentials = {
  accessKeyId: 'TESTACCESSKEY0000001',
  secretAccessKey: 'test-secret-key-000000000000000000000001',
};
const region = 'us-east-1';

function configText(dir: string, fsid: string, monPort: number, gatewayPort: number) {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
ms bind msgr1 = false
public addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc secure
run dir = ${dir}/run
pid file = ${dir}/run/$name.pid
admin socket = ${dir}/run/$name.asok
log file = ${dir}/out/$name.log
crash dir = ${dir}/out
mon cluster log file = ${dir}/out/cluster.log
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon data avail warn = 1
mon data avail crit = 1
paxos propose interval = 0.01

[mon]
mon data = ${dir}/mon.$id

[osd]
osd data = ${dir}/osd.$id
osd objectstore = memstore
memstore device bytes = 268435456
osd check max object name len on startup = false

[client]
keyring = /dev/null

[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${gatewayPort}
rgw dns name = 127.0.0.1
rgw thread pool size = 16
`;
}

/** Kills the daemons whose pid files are in `dir`, when the pid still names one of ours. */
async function killDaemons(dir: string) {
  const runDir = join(dir, 'run');
  if (!existsSync(runDir)) return;
  const pids = readdirSync(runDir)
    .filter((file) => file.endsWith('.pid'))
    .map((file) => Number(readFileSync(join(runDir, file), 'utf8')))
    .filter((pid) => {
      try {
        return ['ceph-mon', 'ceph-osd', 'radosgw'].includes(readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
      } catch {
        return false;
      }
    });
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  // Gone, or a zombie until PID 1 reaps it: its ports and memory are free either way.
  const alive = (pid: number) => {
    try {
      return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + 10_000;
  while (pids.some(alive)) {
    if (Date.now() > deadline)
      throw new Error(`ceph daemons ${pids.filter(alive).join(', ')} outlived SIGKILL`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the gateway on a free port; throws with the daemons' logs when it cannot. */
export async function startRadosGateway(): Promise<RadosGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'radosgw-'));
  for (const sub of ['mon.a', 'osd.0', 'out', 'run']) mkdirSync(join(dir, sub));
  const [monPort, gatewayPort] = [await freePort(), await freePort()];
  const fsid = randomUUID();
  const conf = join(dir, 'ceph.conf');
  writeFileSync(conf, configText(dir, fsid, monPort, gatewayPort));
  const ceph = (command: string, ...args: string[]) =>
    run(command, ['-c', conf, ...args], { timeout: 60_000 });
  const stop = async () => {
    await killDaemons(dir);
    rmSync(dir, { recursive: true, force: true });
  };
  const endpoint = `http://127.0.0.1:${gatewayPort}`;
  try {
    await run('monmaptool', [
      '--create',
      '--fsid',
      fsid,
      '--addv',
      'a',
      `[v2:127.0.0.1:${monPort}]`,
      join(dir, 'monmap'),
    ]);
    await ceph('ceph-mon', '-i', 'a', '--mkfs', '--monmap', join(dir, 'monmap'));
    await ceph('ceph-mon', '-i', 'a');
    const osdUuid = randomUUID();
    const osdId = (await ceph('ceph', 'osd', 'new', osdUuid)).stdout.trim();
    await ceph('ceph-osd', '-i', osdId, '--mkfs', '--osd-uuid', osdUuid);
    await ceph('ceph-osd', '-i', osdId);
    await ceph(
      'radosgw-admin',
      ...['user', 'create', '--uid', 'tests', '--display-name', 'tests'],
      ...['--access-key', credentials.accessKeyId, '--secret-key', credentials.secretAccessKey],
    );
    await ceph('radosgw', '-n', 'client.rgw');
    const deadline = Date.now() + 60_000;
    while (
      !(await fetch(endpoint).then(
        () => true,
        () => false,
      ))
    ) {
      if (Date.now() > deadline)
        throw new Error(`the RADOS Gateway did not answer on ${endpoint} within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    const logs = readdirSync(join(dir, 'out'))
      .map(
        (file) =>
          `--- ${file}\n${readFileSync(join(dir, 'out', file), 'utf8')
            .split('\n')
            .slice(-20)
            .join('\n')}`,
      )
      .join('\n');
    await stop();
    throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }
  return {
    endpoint,
    region,
    credentials,
    async createBucket() {
      const client = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
      const bucket = `tests-${randomUUID()}`;
      try {
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
      } finally {
        client.destroy();
      }
      return bucket;
    },
    platformEnv: (bucket) => ({
      BLOB_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: region,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    }),
    stop,
  };
}
