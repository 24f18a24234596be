import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, messageOf } from './errors';

describe('messageOf: words for a call that got no answer', () => {
  afterEach(() => vi.restoreAllMocks());

  it('blames the platform, not the connection, when the browser is online', () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(true);
    expect(messageOf(new TypeError('Failed to fetch'))).toBe(
      'The platform is not answering. Try again in a moment.',
    );
  });

  it('says the browser is offline when it is', () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    expect(messageOf(new TypeError('Failed to fetch'))).toBe(
      'You are offline. Check your connection, then try again.',
    );
  });

  it('says the platform is not answering when a gateway in front of it says so (502, 504)', () => {
    for (const status of [502, 504])
      expect(messageOf(new ApiError(status, 'http_error', 'Bad gateway'))).toBe(
        'The platform is not answering. Try again in a moment.',
      );
  });
});
