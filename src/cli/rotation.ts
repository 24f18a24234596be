/**
 * nginx's rotation from each instance's /readyz, for `npm run cluster`. Open-source nginx has no
 * active health checks. It has a passive one: a connection refused takes the instance out for
 * `fail_timeout` and the request goes to another instance (safe for every request, nothing of it
 * having been sent). So an instance that is starting, stopping (SIGTERM closes its port) or dead
 * needs nothing more. What nginx cannot see is an instance that takes connections but cannot
 * serve: its /readyz answers 503 `not_ready` (a backend of its own is away), or it does not answer
 * at all (a frozen process, whose requests would hang). The supervisor asks each /readyz, as a
 * load balancer that polls would, and reloads nginx with those marked `down` until they pass.
 *
 * Reloads are kept to those cases because a reload is not free for clients: nginx's old workers
 * close their idle kept-alive client connections, and a client that sends a request on one at
 * that moment sees it closed (browsers send it again by themselves; other clients may not).
 */

export interface Member {
  name: string;
  /** The instance's own address (not nginx's). */
  url: string;
}

export interface Probe {
  /**
   * `ready`: it can serve; `refusing`: no connection (starting, stopping, dead), which nginx sees by
   * itself; `not_ready`: it takes connections and cannot serve, or does not answer them.
   */
  state: 'ready' | 'refusing' | 'not_ready';
  /** What the instance said, for the log: `/readyz 503 (not_ready)`, `silent for 3 s` … */
  said: string;
}

export interface RotationOptions {
  members: readonly Member[];
  /** How often each /readyz is asked. */
  intervalMs?: number;
  /** An instance silent this long counts as not ready (a frozen process answers nothing). */
  timeoutMs?: number;
  /**
   * Puts a new rotation into effect (each member in or out, in order), resolving once nginx serves
   * new connections with it; the next round of probes waits for it.
   */
  apply: (inRotation: boolean[], probes: Probe[]) => Promise<void>;
}

/** Asks one instance whether it can serve now. */
export async function probeReadiness(url: string, timeoutMs: number): Promise<Probe> {
  try {
    const answer = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await answer.json().catch(() => undefined)) as { status?: string } | undefined;
    const said = `/readyz ${answer.status}${body?.status ? ` (${body.status})` : ''}`;
    if (answer.status === 200) return { state: 'ready', said };
    // Stopping after SIGTERM: its port is closed already (this answer came on a kept-alive
    // connection), so nginx gets no new connection to it.
    return { state: body?.status === 'stopping' ? 'refusing' : 'not_ready', said };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      return { state: 'not_ready', said: `/readyz silent for ${timeoutMs / 1000} s` };
    // Only a refused connection is one nginx sees by itself. Anything else (a connection reset or
    // closed unanswered, as a frozen process's can be under load) says nothing of whether the
    // instance serves: treating it as refusing put a frozen instance back into rotation.
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return code === 'ECONNREFUSED'
      ? { state: 'refusing', said: 'not taking connections' }
      : { state: 'not_ready', said: `/readyz failed (${code ?? (error as Error).message})` };
  }
}

/**
 * Who is in rotation: every instance but those `not_ready`, unless no instance is ready at all. A
 * backend every instance shares being away (PostgreSQL, the bucket) fails every /readyz at once,
 * and then each instance's own 503 with `Retry-After` is a better answer for clients than nginx's
 * 502 for an upstream with every server down.
 */
export const rotationFrom = (states: readonly Probe['state'][]): boolean[] =>
  states.includes('ready') ? states.map((state) => state !== 'not_ready') : states.map(() => true);

/**
 * Each member's state as the rotation takes it: `not_ready` only after `toLeave` such probes in a
 * row, and once out, back only after `toReturn` passes in a row (or at once when it refuses
 * connections, which nginx sees by itself). One slow /readyz on a busy machine then neither takes an
 * instance out nor puts it back: each change is a reload, and each reload costs clients (above).
 */
export function steadyStates(count: number, { toLeave = 2, toReturn = 2 } = {}) {
  const streaks = Array.from({ length: count }, () => ({ state: 'ready' as Probe['state'], length: 0 }));
  const out = Array.from({ length: count }, () => false);
  return (states: readonly Probe['state'][]): Probe['state'][] =>
    states.map((state, i) => {
      const streak = streaks[i]!;
      streak.length = streak.state === state ? streak.length + 1 : 1;
      streak.state = state;
      if (!out[i]) out[i] = state === 'not_ready' && streak.length >= toLeave;
      else out[i] = !(state === 'refusing' || (state === 'ready' && streak.length >= toReturn));
      if (out[i]) return 'not_ready';
      // Not ready for too short a time to count: still served.
      return state === 'not_ready' ? 'ready' : state;
    });
}

/** Polls every member's /readyz until stopped; calls `apply` whenever the rotation changes. */
export function watchRotation({ members, intervalMs = 500, timeoutMs = 3000, apply }: RotationOptions) {
  let current = members.map(() => true);
  const steady = steadyStates(members.length);
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const probes = await Promise.all(members.map(({ url }) => probeReadiness(url, timeoutMs)));
      const next = rotationFrom(steady(probes.map(({ state }) => state)));
      if (!stopped && next.some((inRotation, i) => inRotation !== current[i])) {
        await apply(next, probes);
        current = next;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    /** Whether each member is in rotation now. */
    current: () => [...current],
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}
