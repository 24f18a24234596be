import type { ThumbnailHooks } from '../media/pending-thumbnails';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it answers something other than undefined, for up to `ms` (generous: a render
 * waits for a CPU on a busy machine, its worker running at the lowest priority). Answers that value.
 */
export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 120_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Holds a platform's thumbnails at one step (before the render, or before the PNG is stored) until
 * the test lets them go: what is pending stays pending, whatever the machine's speed. Open unless
 * `hold()` was called.
 */
export function thumbnailGate() {
  let holding = false;
  let open: () => void = () => {};
  let opened = Promise.resolve();
  /** Thumbnail ids that reached the gate, in order. */
  const arrived: number[] = [];
  const wait = async (id: number) => {
    arrived.push(id);
    if (holding) await opened;
  };
  return {
    arrived,
    hold() {
      holding = true;
      opened = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    release() {
      holding = false;
      open();
    },
    /** As hooks of startPlatform: at `step`. */
    at(step: keyof ThumbnailHooks): ThumbnailHooks {
      return { [step]: wait };
    },
  };
}
