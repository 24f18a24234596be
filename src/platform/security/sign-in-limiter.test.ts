import { describe, expect, it } from 'vitest';
import { defaultSignInRules, SignInLimiter } from './sign-in-limiter';

function limiter() {
  let now = 1_000_000;
  const clock = { advance: (ms: number) => (now += ms) };
  return { limiter: new SignInLimiter(defaultSignInRules, () => now), clock };
}

const minute = 60_000;

describe('H6 sign-in limiter', () => {
  it('counts an attempt from the moment it starts, so a burst is held like a sequence (D3)', () => {
    const { limiter: l } = limiter();
    const turns = Array.from({ length: 7 }, () => l.begin({ account: 'a@x.test', address: '10.0.0.1' }));
    expect(turns.map((t) => t.waitMs > 0)).toEqual([false, false, false, false, false, true, true]);
  });

  it('gives a successful attempt back to its address, without starting a new wait there', () => {
    const { limiter: l, clock } = limiter();
    for (let i = 0; i < 20; i++) l.begin({ account: `user-${i}@x.test`, address: '10.0.0.1' });
    expect(l.begin({ account: 'owner@x.test', address: '10.0.0.1' }).waitMs).toBeGreaterThan(0);
    clock.advance(minute);
    // The wait is over; a person with the right password signs in.
    l.begin({ account: 'owner@x.test', address: '10.0.0.1' }).succeeded();
    expect(l.begin({ account: 'other@x.test', address: '10.0.0.1' }).waitMs).toBe(0);
    // That attempt (a failure) was the 21st: the next one waits 2 minutes.
    expect(l.begin({ account: 'third@x.test', address: '10.0.0.1' }).waitMs).toBe(2 * minute);
  });

  it('clears an account on success, and forgets failures a day after the last one', () => {
    const { limiter: l, clock } = limiter();
    for (let i = 0; i < 5; i++) l.begin({ account: 'a@x.test', address: `10.0.0.${i}` });
    expect(l.begin({ account: ' A@X.test ', address: '10.0.1.1' }).waitMs).toBe(minute);
    clock.advance(minute);
    l.begin({ account: 'a@x.test', address: '10.0.1.1' }).succeeded();
    expect(l.begin({ account: 'a@x.test', address: '10.0.1.2' }).waitMs).toBe(0);

    for (let i = 0; i < 9; i++) l.begin({ account: 'b@x.test', address: `10.0.2.${i}` });
    expect(l.begin({ account: 'b@x.test', address: '10.0.3.1' }).waitMs).toBeGreaterThan(0);
    clock.advance(24 * 60 * minute + 1);
    expect(l.begin({ account: 'b@x.test', address: '10.0.3.1' }).waitMs).toBe(0);
  });

  it('lets a known device through while its account is held, until the device itself has failed 10 times (D2)', () => {
    const { limiter: l } = limiter();
    for (let i = 0; i < 5; i++) l.begin({ account: 'a@x.test', address: '10.0.0.9' });
    expect(l.begin({ account: 'a@x.test', address: '10.0.0.1' }).waitMs).toBeGreaterThan(0);
    const fromDevice = () => l.begin({ account: 'a@x.test', address: '10.0.0.1', device: 'nonce-1' });
    for (let i = 0; i < 10; i++) expect(fromDevice().waitMs).toBe(0);
    expect(fromDevice().waitMs).toBeGreaterThan(0);
    expect(l.begin({ account: 'a@x.test', address: '10.0.0.1', device: 'nonce-2' }).waitMs).toBe(0);
  });
});
