import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PendingImage } from './chosen-files';
import { unansweredIssues, useCropQueue } from './use-crop-queue';

const image = (name: string): PendingImage => ({ file: new File(['x'], name), url: `blob:${name}` });

describe("a slot's queue of images for the crop dialog", () => {
  const revoked: string[] = [];
  beforeEach(() => {
    vi.stubGlobal('URL', Object.assign(URL, { revokeObjectURL: (url: string) => void revoked.push(url) }));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    revoked.length = 0;
  });

  function queue() {
    const uploaded: string[] = [];
    const hook = renderHook(() =>
      useCropQueue((file, meta) => uploaded.push(`${file.name} ${JSON.stringify(meta)}`)),
    );
    return { hook, uploaded, now: () => hook.result.current };
  }

  it('shows one image at a time, counts through the batch, and uploads each as cropped, whole or not at all', () => {
    const { now, uploaded } = queue();
    act(() => now().add([image('a.png'), image('b.png'), image('c.png')]));
    expect(now().current?.file.name).toBe('a.png');
    expect(now().position).toEqual({ position: 1, total: 3 });

    act(() => now().finish({ x: 0, y: 0, width: 10, height: 10 }));
    act(() => now().finish(undefined)); // cancelled: not uploaded
    expect(now().position).toEqual({ position: 3, total: 3 });
    act(() => now().finish(null)); // the whole image

    expect(uploaded).toEqual(['a.png {"crop":{"x":0,"y":0,"width":10,"height":10}}', 'c.png {}']);
    expect(now().current).toBeUndefined();
    expect(revoked).toEqual(['blob:a.png', 'blob:b.png', 'blob:c.png']);
  });

  it('grows a batch under way by the images added to it', () => {
    const { now } = queue();
    act(() => now().add([image('a.png'), image('b.png')]));
    act(() => now().finish(null));
    act(() => now().add([image('c.png')]));
    expect(now().position).toEqual({ position: 2, total: 3 });
  });

  it('says no position for a single image', () => {
    const { now } = queue();
    act(() => now().add([image('a.png')]));
    expect(now().position).toBeUndefined();
  });

  it('uploads the rest whole on "Skip crop for the rest", and empties the queue', () => {
    const { now, uploaded } = queue();
    act(() => now().add([image('a.png'), image('b.png')]));
    act(() => now().skipRest());
    expect(uploaded).toEqual(['a.png {}', 'b.png {}']);
    expect(now().length).toBe(0);
    expect(now().position).toBeUndefined();
  });

  it('lets go of the URLs of images still waiting when the page goes away', () => {
    const { hook, now } = queue();
    act(() => now().add([image('a.png'), image('b.png')]));
    hook.unmount();
    expect(revoked).toEqual(['blob:a.png', 'blob:b.png']);
  });

  it('moves a photo with a warning on to the crop dialog once the person chose "Use anyway"', () => {
    const { now } = queue();
    const warned: PendingImage = {
      ...image('blurry.jpg'),
      verdict: {
        kind: 'checked',
        ms: 1,
        quality: {
          ok: false,
          issues: ['blurry'],
          measures: {
            short_side: 3000,
            sharpness: 1,
            luminance: 130,
            dark_share: 0,
            clipped_share: 0,
            glare_share: 0,
          },
        },
      },
    };
    act(() => now().add([warned]));
    expect(unansweredIssues(now().current!)).toEqual(['blurry']);
    act(() => now().goOnAnyway());
    expect(unansweredIssues(now().current!)).toEqual([]);
  });
});
