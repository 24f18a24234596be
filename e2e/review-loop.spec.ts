import type { Browser, Page } from '@playwright/test';
import { addUser, expect, signIn, test } from './support/app';
import { multiPagePdf } from './support/files';
import { card, slot } from './support/page-parts';

/**
 * The accreditation review as its two people live it (issue 13): the investor sends documents and
 * learns the decision, the note and what to do next; the admin decides, sees the confirmation, can
 * take a decision back for a few seconds, and finds it under "Decided". Both read the same history.
 * Each test has its own investor, so the queue's other accreditations do not matter.
 */

async function signedIn(browser: Browser, email: string, password?: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, email, password);
  return page;
}

/** The admin's queue item of one accreditation. */
const queueItem = (admin: Page, name: string) =>
  admin.getByRole('listitem').filter({ has: admin.getByRole('heading', { name, exact: true }) });

test('a rejection reaches the investor with the note and what to do next; a new document sends it back to the queue', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const investorName = `Nia Newcomer ${Date.now()}`;
  const account = addUser('investor', investorName);
  const accreditation = account.accreditation!;

  // The investor sends a letter; the page says it waits for a review.
  const investor = await signedIn(browser, account.email, account.password);
  await investor.getByRole('link', { name: accreditation.name }).click();
  await expect(investor.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();
  const letters = slot(investor, 'Letter of accreditation');
  await letters
    .getByTestId('input-letter_of_accreditation')
    .setInputFiles(multiPagePdf('unsigned-letter.pdf', ['Letter', 'No signature']));
  await expect(card(letters, 'unsigned-letter.pdf')).toBeVisible();

  // The admin rejects with a note, takes it back, then rejects for good.
  const admin = await signedIn(browser, 'admin@demo.test');
  await admin.getByRole('link', { name: 'Review queue' }).click();
  let item = queueItem(admin, accreditation.name);
  await expect(item.getByRole('button', { name: 'Open unsigned-letter.pdf' })).toBeVisible();
  const note = 'The letter is not signed. Please upload the signed letter from your adviser.';
  await item.getByLabel('Note to the investor (optional)').fill(note);
  await item.getByRole('button', { name: 'Reject' }).click();
  await expect(item).toHaveCount(0);
  const confirmation = admin.getByRole('status').filter({ hasText: `Rejected ${accreditation.name}.` });
  await expect(confirmation).toBeVisible();
  await confirmation.getByRole('button', { name: `Undo the decision on ${accreditation.name}` }).click();
  item = queueItem(admin, accreditation.name);
  await expect(item).toBeVisible();
  // Focus is on the item that came back, not lost at the top of the page.
  await expect(item.getByRole('heading', { name: accreditation.name })).toBeFocused();

  // Nothing reached the investor meanwhile.
  await investor.reload();
  await expect(investor.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();

  await item.getByLabel('Note to the investor (optional)').fill(note);
  await item.getByRole('button', { name: 'Reject' }).click();
  await expect(admin.getByText(`Rejected ${accreditation.name}.`)).toBeVisible();
  await expect(admin.getByText(`Rejected ${accreditation.name}.`)).toHaveCount(0, { timeout: 30_000 });

  // "Decided" lists it with who decided, and the note.
  await admin.getByRole('link', { name: 'Decided' }).click();
  const decided = admin
    .getByRole('listitem')
    .filter({ has: admin.getByRole('link', { name: accreditation.name, exact: true }) });
  await expect(decided.getByRole('heading', { name: 'Review: Not approved' })).toBeVisible();
  await expect(decided.getByText(/Decided by Ada Admin on /)).toBeVisible();
  await expect(decided.getByText(note)).toBeVisible();

  // The investor learns it: status, note, what to do next, and the history.
  await investor.reload();
  const status = investor.getByRole('region', { name: 'Review: Not approved' });
  await expect(status).toBeVisible();
  await expect(status.getByText(note)).toBeVisible();
  await expect(status.getByText(/Decided by Ada Admin on /)).toBeVisible();
  await expect(status.getByText(/What to do next:/)).toBeVisible();
  const history = investor.getByRole('region', { name: 'History' });
  await expect(history.getByText('Ada Admin did not approve the accreditation.')).toBeVisible();
  await expect(history.getByText(note)).toBeVisible();
  await expect(history.getByText(/uploaded unsigned-letter\.pdf \(letter of accreditation\)/)).toBeVisible();

  // A signed letter replaces the unsigned one: back to waiting, and back in the admin's queue.
  await letters
    .getByTestId('input-letter_of_accreditation')
    .setInputFiles(multiPagePdf('letter-with-signature.pdf', ['Letter', 'Signed']));
  await expect(card(letters, 'letter-with-signature.pdf')).toBeVisible();
  await expect(card(letters, 'unsigned-letter.pdf')).toHaveCount(0);
  await expect(investor.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();
  await expect(history.getByText(/sent it back for review with a new document/)).toBeVisible();

  await admin.getByRole('link', { name: 'Waiting' }).click();
  await expect(
    queueItem(admin, accreditation.name).getByRole('button', { name: 'Open letter-with-signature.pdf' }),
  ).toBeVisible();
  await investor.context().close();
  await admin.context().close();
});

test('the admin reads a document in the viewer beside the decision form, and approves from there', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const account = addUser('investor', `Vic Viewer ${Date.now()}`);
  const accreditation = account.accreditation!;
  const investor = await signedIn(browser, account.email, account.password);
  await investor.getByRole('link', { name: accreditation.name }).click();
  await slot(investor, 'Letter of accreditation')
    .getByTestId('input-letter_of_accreditation')
    .setInputFiles(multiPagePdf('letter.pdf', ['Page one of the letter', 'Page two']));
  await expect(card(slot(investor, 'Letter of accreditation'), 'letter.pdf')).toBeVisible();

  const admin = await signedIn(browser, 'admin@demo.test');
  await admin.getByRole('link', { name: 'Review queue' }).click();
  await queueItem(admin, accreditation.name).getByRole('button', { name: 'Open letter.pdf' }).click();
  const viewer = admin.getByRole('dialog', { name: 'letter.pdf' });
  await expect(viewer.getByRole('img', { name: 'Page 1 of 2' })).toBeVisible({ timeout: 30_000 });
  await viewer.getByLabel('Note to the investor (optional)').fill('All in order.');
  await viewer.getByRole('button', { name: 'Approve' }).click();
  await expect(admin.getByRole('dialog')).toHaveCount(0);
  await expect(admin.getByText(`Approved ${accreditation.name}.`)).toBeVisible();
  await expect(admin.getByText(`Approved ${accreditation.name}.`)).toHaveCount(0, { timeout: 30_000 });

  await investor.reload();
  const status = investor.getByRole('region', { name: 'Review: Approved' });
  await expect(status.getByText('All in order.')).toBeVisible();
  await investor.context().close();
  await admin.context().close();
});
