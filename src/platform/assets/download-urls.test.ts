import { describe, expect, it } from 'vitest';
import { hmac } from '../security/secrets';
import { deliveryPath, type DownloadTarget, signatureMatches, signDownloadUrl } from './download-urls';

const key = Buffer.alloc(32, 7);

/** The URL as the URL class builds it: what signDownloadUrl writes as a string. */
function viaUrlClass(publicUrl: string, target: DownloadTarget, state: string) {
  const url = new URL(deliveryPath(target.assetId), publicUrl);
  url.searchParams.set('variant', target.variant);
  if (target.width !== null) url.searchParams.set('width', String(target.width));
  url.searchParams.set('expires', String(target.expires));
  const payload = `download:${target.assetId}:${target.variant}:${target.width ?? ''}:${target.expires}:${state}`;
  url.searchParams.set('signature', hmac(key, payload));
  return url.toString();
}

describe('signDownloadUrl', () => {
  const targets: DownloadTarget[] = [
    { assetId: 1, variant: 'original', width: null, expires: 1_795_000_000 },
    { assetId: 987_654, variant: 'preview', width: 640, expires: 1_795_000_300 },
    { assetId: 42, variant: 'cropped', width: null, expires: 2_000_000_000 },
    { assetId: 42, variant: 'cropped', width: 1920, expires: 1 },
  ];
  const publicUrls = [
    'http://127.0.0.1:4000',
    'https://Assets.Example.com:443',
    'https://example.com/platform',
    'http://[::1]:4000',
  ];

  it('writes exactly the URL the URL class would build', () => {
    for (const publicUrl of publicUrls) {
      for (const [i, target] of targets.entries()) {
        const state = `blob-${i}_key-${'x'.repeat(i * 10)}:${i % 2}:${i === 2 ? 'c1_2_3_4' : ''}`;
        expect(signDownloadUrl(publicUrl, key, target, state)).toBe(viaUrlClass(publicUrl, target, state));
      }
    }
  });

  it('signs what delivery checks', () => {
    const target = targets[1]!;
    const state = 'blob:0:';
    const url = new URL(signDownloadUrl('http://127.0.0.1:4000', key, target, state));
    const signature = url.searchParams.get('signature')!;
    expect(signatureMatches(key, target, state, signature)).toBe(true);
    expect(signatureMatches(key, { ...target, width: 800 }, state, signature)).toBe(false);
    expect(signatureMatches(key, target, 'blob:1:', signature)).toBe(false);
  });
});
