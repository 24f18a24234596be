import { spawn, type ChildProcess } from 'node:child_process';
import { type RestartPolicy, restartBackoff } from './restart-backoff';

export interface Program {
  name: string;
  /** The executable; Node itself unless said otherwise, so that no npm or shell process sits between. */
  command?: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /**
   * Whether everything stops when this program stops by itself (the platform and proxy of `npm start`).
   * Otherwise its end is reported and the others keep running (one instance of several).
   */
  essential: boolean;
  /** `pipe`: its standard output is the caller's to read (a program that says where it listens). */
  stdout?: 'inherit' | 'pipe';
  /**
   * A program that is not essential is started again when it stops, whatever the reason (a crash,
   * SIGKILL, or the SIGTERM of a rolling restart), after a wait that grows while it keeps stopping.
   */
  restart?: RestartPolicy;
  /** Called with each process started for it, the first and every restart (its pid is new). */
  onStart?: (child: ChildProcess) => void;
}

/**
 * The programs of one command, each its own process talking real HTTP, stopped together: Ctrl-C (or
 * SIGTERM) stops them all, and the command exits once they have.
 *
 * Stays whole: start, stop and waitFor share the set of running children and the pending restarts of this
 * closure.
 */
export function createSupervisor(baseEnv: NodeJS.ProcessEnv) {
  /** The current process of each program (a restarted one replaces its predecessor). */
  const children = new Set<ChildProcess>();
  const pendingRestarts = new Set<NodeJS.Timeout>();
  let stopping = false;

  const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

  function stop(exitCode = 0) {
    if (stopping) return;
    stopping = true;
    for (const timer of pendingRestarts) clearTimeout(timer);
    for (const child of children) if (running(child)) child.kill('SIGTERM');
    void Promise.all(
      [...children].map((c) => new Promise((done) => (running(c) ? c.once('exit', done) : done(null)))),
    ).then(() => process.exit(exitCode));
  }
  process.once('SIGINT', () => stop());
  process.once('SIGTERM', () => stop());

  function spawnProgram(program: Program): ChildProcess {
    const child = spawn(program.command ?? process.execPath, program.args, {
      env: { ...baseEnv, ...program.env },
      stdio: ['inherit', program.stdout ?? 'inherit', 'inherit'],
    });
    children.add(child);
    program.onStart?.(child);
    return child;
  }

  function start(program: Program): ChildProcess {
    const backoff = program.restart && restartBackoff(program.restart);
    const run = () => {
      const startedAt = Date.now();
      const child = spawnProgram(program);
      child.on('exit', (code, signal) => {
        if (stopping) return;
        const how = signal ?? `exit ${code}`;
        if (program.essential) {
          console.error(`${program.name} stopped (${how}); stopping everything.`);
          return stop(code || 1);
        }
        if (!backoff) return console.error(`${program.name} stopped (${how}); the others keep running.`);
        children.delete(child);
        const ran = Date.now() - startedAt;
        const delay = backoff.delayAfter(ran);
        console.error(
          `${program.name} (pid ${child.pid}) stopped (${how}) after ${seconds(ran)}; ` +
            `the others keep running; starting it again in ${seconds(delay)}.`,
        );
        const timer = setTimeout(() => {
          pendingRestarts.delete(timer);
          if (!stopping) run();
        }, delay);
        pendingRestarts.add(timer);
      });
      return child;
    };
    return run();
  }

  /**
   * Waits until `url` answers 2xx; after `seconds` without, or when `child` (the program that should
   * answer) has stopped, stops everything.
   */
  async function waitFor(
    url: string,
    what: string,
    { seconds = 60, child }: { seconds?: number; child?: ChildProcess } = {},
  ) {
    const deadline = Date.now() + seconds * 1000;
    while (!stopping) {
      if (child && !running(child)) {
        console.error(`${what} stopped before it answered.`);
        return stop(1);
      }
      const ok = await fetch(url).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline) {
        console.error(`${what} did not start within ${seconds} s.`);
        return stop(1);
      }
      await new Promise((done) => setTimeout(done, 200));
    }
  }

  return { start, stop, waitFor, isStopping: () => stopping };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
