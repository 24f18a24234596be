/**
 * At most `size` tasks run at once; the rest wait in order. Uploads share one limiter so that dropping
 * twenty files does not open twenty connections and starve each of bandwidth.
 */
export function createLimiter(size: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
