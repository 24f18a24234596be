import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { findFileType } from '../../../../shared/assets/file-types';
import type { PhotoQuality } from '../../../../shared/assets/photo-quality';
import { ServicesContext } from '../../../lib/services';
import {
  http,
  HttpResponse,
  mockPlatform,
  platformUrl,
  specAsset,
  testConfig,
} from '../../../testing/platform-double';
import { testServices } from '../../../testing/render';
import { AssetSlot } from '../components/asset-slot';
import { PhotoCheckerContext, type PhotoChecker, type PhotoVerdict } from './photo-checker';
import { shownOnly } from '../../../lib/file-lists';

const server = mockPlatform();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

// jsdom neither makes object URLs nor loads images: a photo of 4000 × 3000 that "loads" at once.
beforeEach(() => {
  vi.stubGlobal(
    'URL',
    Object.assign(URL, { createObjectURL: () => 'blob:photo', revokeObjectURL: () => undefined }),
  );
  vi.stubGlobal(
    'Image',
    class {
      naturalWidth = 4000;
      naturalHeight = 3000;
      onload: (() => void) | null = null;
      set src(_url: string) {
        queueMicrotask(() => this.onload?.());
      }
    },
  );
});
afterEach(() => vi.unstubAllGlobals());

const accreditation = { type: 'Accreditation' as const, id: 5 };
const licence = findFileType('drivers_license')!;
const photo = (name: string) =>
  new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], name, { type: 'image/jpeg' });

const quality = (issues: PhotoQuality['issues']): PhotoVerdict => ({
  kind: 'checked',
  ms: 120,
  quality: {
    ok: issues.length === 0,
    issues,
    measures: {
      short_side: 3000,
      sharpness: 20,
      luminance: 130,
      dark_share: 0,
      clipped_share: 0,
      glare_share: 0,
    },
  },
});

/** A checker that answers from a table by file name, and remembers what it was asked. */
function fakeChecker(answers: Record<string, PhotoVerdict>) {
  const asked: { name: string; width: number; height: number }[] = [];
  const checker: PhotoChecker = {
    check: async (file, size) => {
      asked.push({ name: file.name, ...size });
      return answers[file.name]!;
    },
  };
  return { checker, asked };
}

function uploads() {
  const names: string[] = [];
  server.use(
    http.post(`${platformUrl}/v2/core/assets`, async ({ request }) => {
      const form = await request.formData();
      // jsdom's multipart loses the part's file name; the `name` field carries it.
      const name = String(form.get('name'));
      names.push(name);
      return HttpResponse.json(
        {
          asset: specAsset({
            id: 40 + names.length,
            name,
            file_type: 'drivers_license',
            private: true,
            assetable: accreditation,
          }),
        },
        { status: 201 },
      );
    }),
  );
  return names;
}

function renderLicenceSlot(checker: PhotoChecker) {
  const services = testServices(testConfig());
  render(
    <ServicesContext value={services}>
      <QueryClientProvider client={services.queryClient}>
        <PhotoCheckerContext value={checker}>
          <AssetSlot
            entity={accreditation}
            fileType={licence}
            files={[]}
            list={shownOnly(['files', 'Accreditation', 5])}
            canEdit
            onForbidden={() => undefined}
          />
        </PhotoCheckerContext>
      </QueryClientProvider>
    </ServicesContext>,
  );
}

describe('the photo check before a licence is uploaded (issue 31)', () => {
  it('says what is wrong beside the photo and what to do; "Use anyway" goes on to the upload', async () => {
    const sent = uploads();
    const { checker, asked } = fakeChecker({ 'blurry.jpg': quality(['blurry', 'glare']) });
    renderLicenceSlot(checker);
    const user = userEvent.setup();
    await user.upload(await screen.findByTestId('input-drivers_license'), photo('blurry.jpg'));

    const heading = await screen.findByRole('heading', { name: 'This photo may be hard to read' });
    expect(asked).toEqual([{ name: 'blurry.jpg', width: 4000, height: 3000 }]);
    expect(screen.getByText('The photo is blurry — hold the phone steady and let it focus.')).toBeTruthy();
    expect(
      screen.getByText('Part of the licence is lost to glare — tilt it away from the light.'),
    ).toBeTruthy();
    expect(screen.getByRole('img', { name: 'The photo you chose: blurry.jpg' })).toBeTruthy();
    // Focus is on the warning, and the keyboard's next stops are the two choices.
    await waitFor(() => expect(document.activeElement).toBe(heading));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Retake / Choose another' }));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Use anyway' }));
    // No crop dialog and nothing sent while the question is open.
    expect(screen.queryByRole('button', { name: 'Use whole image' })).toBeNull();
    expect(sent).toEqual([]);

    await user.keyboard('{Enter}');
    expect(screen.queryByRole('heading', { name: 'This photo may be hard to read' })).toBeNull();
    await user.click(await screen.findByRole('button', { name: 'Use whole image' }));
    await waitFor(() => expect(sent).toEqual(['blurry.jpg']));
  });

  it('"Retake / Choose another" offers the camera and checks the new photo instead; a good one goes on without a word', async () => {
    const sent = uploads();
    const { checker, asked } = fakeChecker({ 'dark.jpg': quality(['dark']), 'good.jpg': quality([]) });
    renderLicenceSlot(checker);
    const user = userEvent.setup();
    await user.upload(await screen.findByTestId('input-drivers_license'), photo('dark.jpg'));
    expect(await screen.findByText('The photo is too dark — take it in better light.')).toBeTruthy();

    const retake = screen.getByTestId('photo-warning-retake');
    expect(retake.getAttribute('capture')).toBe('environment');
    await user.upload(retake, photo('good.jpg'));
    // Nothing to say about the new one: straight on to the crop dialog, no warning.
    await user.click(await screen.findByRole('button', { name: 'Use whole image' }));
    await waitFor(() => expect(sent).toEqual(['good.jpg']));
    expect(asked.map((a) => a.name)).toEqual(['dark.jpg', 'good.jpg']);
    expect(screen.queryByText(/hard to read/)).toBeNull();
  });

  it('says the photo is being checked while the check runs (a 100 MP photo takes most of a second on a phone)', async () => {
    let answer!: (verdict: PhotoVerdict) => void;
    renderLicenceSlot({ check: () => new Promise((resolve) => (answer = resolve)) });
    const user = userEvent.setup();
    await user.upload(await screen.findByTestId('input-drivers_license'), photo('huge.jpg'));

    const waiting = await screen.findByText('Checking the photo…');
    expect(waiting.closest('[role="status"]')).not.toBeNull();
    answer(quality(['blurry']));
    await screen.findByRole('heading', { name: 'This photo may be hard to read' });
    expect(screen.queryByText('Checking the photo…')).toBeNull();
  });

  it('a photo the browser cannot check goes up all the same, with a line saying so', async () => {
    const sent = uploads();
    const { checker } = fakeChecker({ 'photo.heic.jpg': { kind: 'skipped', reason: 'no decoder' } });
    renderLicenceSlot(checker);
    const user = userEvent.setup();
    await user.upload(await screen.findByTestId('input-drivers_license'), photo('photo.heic.jpg'));
    expect(
      await screen.findByText(
        'photo.heic.jpg could not be checked here; the platform checks it when it arrives.',
      ),
    ).toBeTruthy();
    await user.click(await screen.findByRole('button', { name: 'Use whole image' }));
    await waitFor(() => expect(sent).toEqual(['photo.heic.jpg']));
  });
});
