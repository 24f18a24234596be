import { afterAll, expect, it } from 'vitest';
import { removeRedisKeys, testRedisClient, testRedisEnv } from '../../testing/redis';
import { RedisUploadLocker, uploadLocked } from './redis-upload-locker';

const prefix = testRedisEnv().REDIS_KEY_PREFIX;
const first = testRedisClient();
const second = testRedisClient();
afterAll(async () => {
  await removeRedisKeys(prefix);
  first.disconnect();
  second.disconnect();
});

it('lets one instance write an upload at a time: the other waits, then answers 423, and gets it once released', async () => {
  const here = new RedisUploadLocker(first, prefix, 300);
  const there = new RedisUploadLocker(second, prefix, 300);
  const held = here.newLock('upload-1');
  await held.lock(new AbortController().signal, () => {});

  await expect(there.newLock('upload-1').lock(new AbortController().signal, () => {})).rejects.toBe(
    uploadLocked,
  );
  // Another upload is not held up.
  const other = there.newLock('upload-2');
  await other.lock(new AbortController().signal, () => {});
  await other.unlock();

  await held.unlock();
  const next = there.newLock('upload-1');
  await next.lock(new AbortController().signal, () => {});
  await next.unlock();
});
