/** What every part of `npm run bench` uses: medians, waiting for servers, a token, the table. */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';

/** The middle value; NaN for none (a part that measured nothing, as BENCH_ONLY=requests does for S1–S3). */
export const median = (values: number[]) =>
  values.length === 0 ? NaN : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `url` answers at all (a server started by the bench is up), for up to 30 s. */
export async function waitFor(url: string) {
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await sleep(100);
  }
  throw new Error(`${url} did not start`);
}

/** An access token of the demo issuer through the real sign-in flow, with the script people use. */
export function issuerToken(platformUrl: string, dataDir: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const script = spawn('bash', ['scripts/curl-sign-in.sh', 'issuer@demo.test'], {
      env: { ...process.env, PLATFORM_URL: platformUrl, DATA_DIR: dataDir, PRINT_TOKEN: '1' },
    });
    let out = '';
    script.stdout.on('data', (d) => (out += d));
    script.on('exit', (code) =>
      code === 0 ? resolve(/^access_token=(.*)$/m.exec(out)![1]!) : reject(new Error(out)),
    );
  });
}

/**
 * GETs `url` from `loops` concurrent keep-alive loops for `ms`, reading every body in full; answers
 * each request's latency in milliseconds. Any answer but 200 fails the measure.
 */
export async function latencies(
  url: string,
  options: { headers?: Record<string, string>; ms: number; loops: number },
) {
  const agent = new Agent({ keepAlive: true, maxSockets: options.loops });
  const samples: number[] = [];
  const until = performance.now() + options.ms;
  const loop = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      await new Promise<void>((resolve, reject) =>
        request(url, { agent, headers: options.headers }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
          res.resume();
          res.on('end', () => resolve());
        })
          .on('error', reject)
          .end(),
      );
      samples.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: options.loops }, loop));
  agent.destroy();
  return samples;
}

/** Requests per second of the same load. */
export async function throughput(
  url: string,
  options: { headers?: Record<string, string>; ms?: number; loops: number },
) {
  const ms = options.ms ?? 3000;
  return (await latencies(url, { ...options, ms })).length / (ms / 1000);
}

export interface BenchRow {
  id: string;
  measure: string;
  ratio: number;
  target: string;
}

export function printRows(rows: BenchRow[]) {
  console.log('\n| id | measure | ratio | target |\n|---|---|---|---|');
  for (const row of rows)
    console.log(`| ${row.id} | ${row.measure} | ${row.ratio.toFixed(3)} | ${row.target} |`);
}
