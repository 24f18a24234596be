import type { Redis } from 'ioredis';

export type RedisScript = (keys: string[], args: (string | number)[]) => Promise<unknown>;

/**
 * A Lua script run atomically by Redis (sent once, then called by its hash: ioredis's
 * `defineCommand`). Whatever must be checked and changed together across instances is one script.
 */
export function defineScript(redis: Redis, name: string, numberOfKeys: number, lua: string): RedisScript {
  redis.defineCommand(name, { numberOfKeys, lua });
  const command = (redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!;
  return (keys, args) => command.call(redis, ...keys, ...args);
}
