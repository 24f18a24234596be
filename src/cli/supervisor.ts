import { spawn, type ChildProcess } from 'node:child_process';

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
}

/**
 * The programs of one command, each its own process talking real HTTP, stopped together: Ctrl-C (or
 * SIGTERM) stops them all, and the command exits once they have.
 */
export function createSupervisor(baseEnv: NodeJS.ProcessEnv) {
  const children: ChildProcess[] = [];
  let stopping = false;

  function stop(exitCode = 0) {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    void Promise.all(
      children.map(
        (c) =>
          new Promise((done) =>
            c.exitCode === null && c.signalCode === null ? c.once('exit', done) : done(null),
          ),
      ),
    ).then(() => process.exit(exitCode));
  }
  process.once('SIGINT', () => stop());
  process.once('SIGTERM', () => stop());

  function start(program: Program): ChildProcess {
    const child = spawn(program.command ?? process.execPath, program.args, {
      env: { ...baseEnv, ...program.env },
      stdio: ['inherit', program.stdout ?? 'inherit', 'inherit'],
    });
    child.on('exit', (code, signal) => {
      if (stopping) return;
      const how = signal ?? `exit ${code}`;
      if (program.essential) {
        console.error(`${program.name} stopped (${how}); stopping everything.`);
        stop(code || 1);
      } else {
        console.error(`${program.name} stopped (${how}); the others keep running.`);
      }
    });
    children.push(child);
    return child;
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
      if (child && (child.exitCode !== null || child.signalCode !== null)) {
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
