/**
 * `npm run test:busy`: runs `npm test` while every core is kept busy, to show that the tests hold on
 * a loaded machine (generous time limits, no tight timing windows). One worker thread per core spins
 * in an endless loop at normal priority, competing with the tests for CPU as `stress-ng --cpu N`
 * would, without needing it installed. The load stops when the command ends; the exit code is the
 * command's. Not part of `npm test`.
 *
 *   node --import tsx scripts/busy-machine.ts [command ...]   (default: npm test)
 *   BUSY_WORKERS=n                                              busy threads [one per core]
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const workers = Number(process.env.BUSY_WORKERS ?? availableParallelism());
if (!Number.isInteger(workers) || workers < 0) {
  console.error(`BUSY_WORKERS must be a whole number, not ${process.env.BUSY_WORKERS}`);
  process.exit(2);
}

// Under `npm run`, npm_execpath is npm's own script: run it with this node rather than whatever
// `npm` the PATH holds.
const npm = process.env.npm_execpath
  ? [process.execPath, process.env.npm_execpath]
  : [process.platform === 'win32' ? 'npm.cmd' : 'npm'];
const [command, ...args] = process.argv.length > 2 ? process.argv.slice(2) : [...npm, 'test'];

// An endless loop is still ended by terminate(): V8 interrupts it.
const spinners = Array.from({ length: workers }, () => new Worker('for (;;) {}', { eval: true }));
const stopLoad = () => Promise.all(spinners.map((spinner) => spinner.terminate()));

const shown = process.argv.length > 2 ? process.argv.slice(2).join(' ') : 'npm test';
console.log(`busy-machine: ${workers} busy threads on ${availableParallelism()} cores; running ${shown}`);
const started = performance.now();
const child = spawn(command!, args, { stdio: 'inherit' });

// Ctrl-C reaches the command through the terminal's process group; a plain kill is passed on.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));

child.on('error', async (error) => {
  await stopLoad();
  console.error(`busy-machine: could not start ${shown}: ${error.message}`);
  process.exit(1);
});
child.on('exit', async (code, signal) => {
  await stopLoad();
  const seconds = Math.round((performance.now() - started) / 1000);
  console.log(
    `busy-machine: ${shown} ended (${signal ?? `exit code ${code}`}) after ${seconds} s under load`,
  );
  process.exit(code ?? 1);
});
