import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { rememberOpened, rememberUpload } from '../../lib/browser-memory';
import { http, HttpResponse, platformDouble, platformUrl, specAsset } from '../../testing/platform-double';
import { renderRoutes } from '../../testing/render';
import { EntityPage } from './entity-page';
import { HomePage } from './home-page';

/**
 * The pages as a person meets them on a platform that implements only the spec: no `/me`, no entity
 * reads. Nothing may say the person lacks access to what the platform simply does not offer (C1).
 */
const server = platformDouble();

const notFound = () => HttpResponse.json({ errors: ['Not found'] }, { status: 404 });
const routes = [
  { path: '/', loader: () => ({ signedIn: true }), element: <HomePage /> },
  { path: '/:kind/:id', element: <EntityPage /> },
];

function specOnly() {
  server.use(
    http.get(`${platformUrl}/v2/core/me`, notFound),
    http.get(`${platformUrl}/v2/core/:plural/:id`, notFound),
  );
}

const noAccessWords = /do not have access|permission/i;

describe('the home page without /me', () => {
  it('opens an entity by kind and number, and refuses a number that is not one', async () => {
    specOnly();
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, '/');
    expect(await screen.findByRole('heading', { name: 'Open your files' })).toBeTruthy();
    expect(document.body.textContent).not.toMatch(noAccessWords);

    await user.selectOptions(screen.getByLabelText('What to open'), 'Investment');
    await user.type(screen.getByLabelText('Number'), 'seven');
    await user.click(screen.getByRole('button', { name: 'Open' }));
    expect(screen.getByText('Enter the number as digits only, for example 7.')).toBeTruthy();
    expect(screen.getByLabelText('Number').getAttribute('aria-invalid')).toBe('true');
    expect(router.state.location.pathname).toBe('/');

    await user.clear(screen.getByLabelText('Number'));
    await user.type(screen.getByLabelText('Number'), '12{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/investments/12'));
  });

  it('lists what was opened lately in this browser', async () => {
    specOnly();
    rememberOpened({ type: 'Product', id: 7 });
    rememberOpened({ type: 'Accreditation', id: 3, name: 'My accreditation' });
    renderRoutes(routes, '/');
    const recent = await screen.findByRole('region', { name: 'Opened recently in this browser' });
    expect(
      within(recent)
        .getAllByRole('link')
        .map((link) => [link.textContent, link.getAttribute('href')]),
    ).toEqual([
      ['Accreditation 3 — My accreditation', '/accreditations/3'],
      ['Product 7', '/products/7'],
    ]);
  });
});

describe('an entity page without entity reads', () => {
  it('says the platform does not list its files, and shows the ones uploaded from this browser', async () => {
    specOnly();
    rememberUpload({ type: 'Accreditation', id: 3 }, 21);
    rememberUpload({ type: 'Accreditation', id: 3 }, 22);
    server.use(
      http.get(`${platformUrl}/v2/core/assets/21`, () =>
        HttpResponse.json({
          asset: specAsset({
            id: 21,
            name: 'letter.pdf',
            file_type: 'letter_of_accreditation',
            assetable: { type: 'Accreditation', id: 3 },
            private: true,
          }),
        }),
      ),
      // Deleted elsewhere since: forgotten, not shown.
      http.get(`${platformUrl}/v2/core/assets/22`, notFound),
      http.get(`${platformUrl}/v2/core/assets/:id/download_url`, () =>
        HttpResponse.json({ url: 'https://files.test/x' }),
      ),
    );
    renderRoutes(routes, '/accreditations/3');
    expect(
      await screen.findByText(/This platform does not list the files already stored with this accreditation/),
    ).toBeTruthy();
    const letters = await screen.findByRole('region', { name: 'Letter of accreditation' });
    expect(await within(letters).findByText('letter.pdf', { selector: '.asset-name' })).toBeTruthy();
    // Private, said plainly; no switch, since on an accreditation it would change who sees nothing.
    expect(within(letters).getByText('Private', { selector: '.badge' })).toBeTruthy();
    expect(within(letters).getByText('Only you and the platform’s admins can see this file.')).toBeTruthy();
    expect(within(letters).queryByRole('switch')).toBeNull();
    expect(screen.queryByText('File 22')).toBeNull();
    expect(document.body.textContent).not.toMatch(noAccessWords);
    // The person may change files until the platform says otherwise (the letter's slot holds one).
    expect(
      await within(letters).findByRole('button', { name: 'Replace letter of accreditation' }),
    ).toBeTruthy();
  });

  it('turns read-only, in plain words, once the platform refuses a change (403)', async () => {
    specOnly();
    server.use(
      http.post(`${platformUrl}/v2/core/assets`, () =>
        HttpResponse.json({ errors: ['Forbidden'] }, { status: 403 }),
      ),
    );
    const user = userEvent.setup();
    renderRoutes(routes, '/products/9');
    const decks = await screen.findByRole('region', { name: 'Pitch deck' });
    const input = await waitFor(() => within(decks).getByTestId('input-pitch_deck'));
    await user.upload(
      input as HTMLInputElement,
      new File(['%PDF-1.7 deck'], 'deck.pdf', { type: 'application/pdf' }),
    );
    expect(
      await screen.findByText('You can view these files; the platform did not let you change them.'),
    ).toBeTruthy();
    // Read-only now: no upload anywhere, and the deck's slot, which has no file to show, is gone.
    expect(screen.queryByTestId('input-pitch_deck')).toBeNull();
    expect(screen.queryByRole('region', { name: 'Pitch deck' })).toBeNull();
  });
});
