import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { resumableFromBytes } from '../../../../shared/api/resumable-uploads';
import { unfinishedUploads } from '../../../lib/unfinished-uploads';
import { platformDouble } from '../../../testing/platform-double';
import { renderSlot } from '../../../testing/render-slot';
import { tusPlatform } from '../../../testing/tus-double';

const server = platformDouble();

const size = resumableFromBytes + 1000;
const half = Math.floor(size / 2);

/** A large PDF, the same file each time it is made (name, size, date): what a person chooses again. */
const bigPdf = (name: string) =>
  new File([new Uint8Array(size).fill(1)], name, {
    type: 'application/pdf',
    lastModified: 1_700_000_000_000,
  });

/** One slot of a product on a platform whose proxy found the tus endpoint, as a fresh page draws it. */
const renderResumableSlot = (fileType = 'charter_document') =>
  renderSlot({ fileType, capabilities: { resumableUploads: true } }).fileType;

const chooseFiles = async (fileType: string, ...files: File[]) => {
  const user = userEvent.setup();
  for (const file of files) await user.upload(await screen.findByTestId(`input-${fileType}`), file);
  return user;
};

/** Starts these uploads and pauses each once half of it has arrived; the page then ends (a reload). */
async function pausedThenReloaded(tus: ReturnType<typeof tusPlatform>, fileType: string, names: string[]) {
  tus.holdPatches();
  renderResumableSlot(fileType);
  const user = await chooseFiles(fileType, ...names.map(bigPdf));
  // Each created, and half of each arrived.
  await waitFor(() => expect(tus.log.filter((l) => l.endsWith('cut'))).toHaveLength(names.length));
  for (const name of names) {
    await user.click(await screen.findByRole('button', { name: `Pause ${name}` }));
    await screen.findByRole('button', { name: `Resume ${name}` });
  }
  tus.release();
  cleanup();
}

describe('resumable uploads in a slot', () => {
  it('Pause and Resume from the keyboard: focus stays on the button, the bar stays, and Resume sends only the rest', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    tus.holdPatches();
    renderResumableSlot();
    const user = await chooseFiles('charter_document', bigPdf('charter.pdf'));
    await waitFor(() => expect(tus.log.some((l) => l.endsWith('cut'))).toBe(true));

    const pause = await screen.findByRole('button', { name: 'Pause charter.pdf' });
    pause.focus();
    await user.keyboard('{Enter}');

    // The same button, now Resume, still has focus; the row says where the upload stands.
    await waitFor(() => expect(pause.textContent).toBe('Resume charter.pdf'));
    expect(document.activeElement).toBe(pause);
    const row = within(pause.closest('li')!);
    expect(row.getByText(/^Paused at \d+%$/)).toBeTruthy();
    expect(row.getByRole('progressbar', { name: 'charter.pdf sent' })).toBeTruthy();
    expect(tus.log).not.toContain('DELETE');

    tus.release();
    await user.keyboard('{Enter}');
    expect(await screen.findByText('1 file uploaded')).toBeTruthy();
    expect(tus.log.slice(-2)).toEqual(['HEAD', `PATCH ${half} +${size - half}`]);
    expect(tus.received()).toBe(size);
  });

  it('Cancel on a paused upload gives it up at the platform', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    tus.holdPatches();
    renderResumableSlot();
    const user = await chooseFiles('charter_document', bigPdf('charter.pdf'));
    // Created, and half of it arrived.
    await waitFor(() => expect(tus.log.some((l) => l.endsWith('cut'))).toBe(true));
    await user.click(await screen.findByRole('button', { name: 'Pause charter.pdf' }));
    await screen.findByRole('button', { name: 'Resume charter.pdf' });
    tus.release();

    await user.click(screen.getByRole('button', { name: 'Cancel charter.pdf' }));

    expect(await screen.findByText('Cancelled')).toBeTruthy();
    await waitFor(() => expect(tus.uploads.get('u1')!.deleted).toBe(true));
    expect(await unfinishedUploads.findAllUploads()).toEqual([]);
  });

  it('after a reload, lists what can continue, and the same files chosen again continue from the last byte', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    await pausedThenReloaded(tus, 'charter_document', ['one.pdf', 'two.pdf']);

    renderResumableSlot();
    expect(await screen.findByText('2 uploads can continue — choose the same files to resume.')).toBeTruthy();
    const listed = screen.getByRole('list', { name: 'Uploads that can continue' });
    expect(within(listed).getByRole('button', { name: 'Discard one.pdf' })).toBeTruthy();
    expect(within(listed).getByRole('button', { name: 'Discard two.pdf' })).toBeTruthy();
    expect(within(listed).getAllByText('2.6 MB of 5.2 MB sent')).toHaveLength(2);

    await chooseFiles('charter_document', bigPdf('one.pdf'));
    // Its row takes over: one left to continue.
    expect(await screen.findByText('1 upload can continue — choose the same file to resume.')).toBeTruthy();
    expect(await screen.findByText('1 file uploaded')).toBeTruthy();
    expect(tus.log.slice(-2)).toEqual(['HEAD', `PATCH ${half} +${size - half}`]);
    expect(tus.uploads.get('u1')!.offset).toBe(size);
    // Nothing was created again.
    expect(tus.log.filter((l) => l === 'POST')).toHaveLength(2);
  });

  it('Discard gives an unfinished upload up at the platform, and focus goes to the slot', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    await pausedThenReloaded(tus, 'pitch_deck', ['deck.pdf']);

    const slot = renderResumableSlot('pitch_deck');
    expect(await screen.findByText('1 upload can continue — choose the same file to resume.')).toBeTruthy();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Discard deck.pdf' }));

    await waitFor(() => expect(tus.uploads.get('u1')!.deleted).toBe(true));
    expect(screen.queryByText(/can continue/)).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: slot.label }));
    // Forgotten here too: another reload has nothing to list.
    expect(await unfinishedUploads.findAllUploads()).toEqual([]);
  });
});
