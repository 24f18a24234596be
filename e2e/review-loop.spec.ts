import type { Page } from '@playwright/test';
import { expect, test } from './support/app';
import { checklist, uploadLetter, uploadLicence } from './support/accreditation';
import { card, slot } from './support/page-parts';

/**
 * The accreditation review as its two people live it (issues 13 and 28): the investor uploads what
 * the checklist asks for and sends it for review; the admin finds it in the queue, rejects it with a
 * reason (and can take a decision back for a few seconds); the investor reads the reason in plain
 * words, cannot delete the files decided on, uploads a new one beside them and sends it again; the
 * admin approves. Each test has its own investor and admin, so the queue's other accreditations do not matter.
 */

/** The admin's queue item of one accreditation. */
const queueItem = (admin: Page, name: string) =>
  admin.getByRole('listitem').filter({ has: admin.getByRole('heading', { name, exact: true }) });

/** Searches the admin's queue for one investor, as an admin with a long queue would. */
async function findInQueue(admin: Page, investorName: string) {
  await admin.getByRole('searchbox', { name: 'Search by investor name or email' }).fill(investorName);
  await expect(admin).toHaveURL(/[?&]q=/);
}

test('checklist, send, a rejection with its reason, evidence kept, a new letter beside it, approval', async ({
  loginElsewhere,
}) => {
  test.setTimeout(240_000);
  const investorName = `Nia Newcomer ${Date.now()}`;
  // The investor's checklist: nothing there yet, so it cannot be sent, and it is not in the queue.
  const { person: account, page: investor } = await loginElsewhere({ role: 'investor', name: investorName });
  const accreditation = account.accreditation!;
  await investor.getByRole('link', { name: accreditation.name }).click();
  await expect(investor.getByRole('heading', { name: 'Review: Documents needed' })).toBeVisible();
  const send = checklist(investor).getByRole('button', { name: 'Send for review' });
  await expect(send).toBeDisabled();
  await expect(checklist(investor).getByText(/^Missing/)).toHaveCount(2);
  await expect(slot(investor, 'Utility bill').getByText('Optional', { exact: true })).toBeVisible();

  // The licence lacks the address: a utility bill is required too; then it does not.
  const tick = checklist(investor).getByRole('checkbox', {
    name: 'My licence does not show my current address',
  });
  await tick.check();
  await expect(checklist(investor).getByText(/^Missing/)).toHaveCount(3);
  await expect(slot(investor, 'Utility bill').getByText('Required', { exact: true })).toBeVisible();
  await tick.uncheck();
  await expect(checklist(investor).getByText(/^Missing/)).toHaveCount(2);

  await uploadLetter(investor, 'unsigned-letter.pdf', ['Letter', 'No signature']);
  await uploadLicence(investor);
  await expect(checklist(investor).getByText(/^Missing/)).toHaveCount(0);
  await send.click();
  await expect(investor.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();

  // The admin's home counts the queue; the queue finds the investor by name.
  const { page: admin } = await loginElsewhere({ role: 'admin', name: 'Ada Admin' });
  await admin.getByRole('link', { name: /^Review queue \(\d+ waiting\)$/ }).click();
  await expect(admin.getByRole('link', { name: /^Waiting \(\d+\)$/ })).toBeVisible();
  await findInQueue(admin, investorName);
  let item = queueItem(admin, accreditation.name);
  await expect(item.getByText(/Waiting since/)).toBeVisible();
  await expect(item.getByRole('listitem').filter({ hasText: 'unsigned-letter.pdf' })).toContainText(
    'Letter of accreditation',
  );
  await expect(item.getByRole('listitem').filter({ hasText: 'licence.png' })).toContainText(
    "Driver's licence — front and back",
  );

  // Reject needs a reason: without one the form says so and nothing is sent.
  await item.getByRole('button', { name: 'Reject', exact: true }).click();
  await item.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(item.getByRole('alert')).toHaveText(
    'Choose why it is rejected: the investor is told the reason.',
  );
  const note = 'Please upload the letter signed by your adviser.';
  await item.getByRole('radio', { name: 'Not signed' }).check();
  await item.getByLabel(/Note to the investor/).fill(note);
  await item.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(item).toHaveCount(0);
  const confirmation = admin.getByRole('status').filter({ hasText: `Rejected ${accreditation.name}.` });
  await expect(confirmation).toBeVisible();
  // Taken back within the undo window: the item returns, focused, and nothing reached the investor.
  await confirmation.getByRole('button', { name: `Undo the decision on ${accreditation.name}` }).click();
  item = queueItem(admin, accreditation.name);
  await expect(item.getByRole('heading', { name: accreditation.name })).toBeFocused();
  await investor.reload();
  await expect(investor.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();

  await item.getByRole('button', { name: 'Reject', exact: true }).click();
  await item.getByRole('radio', { name: 'Not signed' }).check();
  await item.getByLabel(/Note to the investor/).fill(note);
  await item.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(admin.getByText(`Rejected ${accreditation.name}.`)).toBeVisible();
  await expect(admin.getByText(`Rejected ${accreditation.name}.`)).toHaveCount(0, { timeout: 30_000 });

  // "Decided" lists it with who decided, why, and the note.
  await admin.getByRole('link', { name: /^Decided/ }).click();
  const decided = admin
    .getByRole('listitem')
    .filter({ has: admin.getByRole('link', { name: accreditation.name, exact: true }) });
  await expect(decided.getByRole('heading', { name: 'Review: Rejected' })).toBeVisible();
  await expect(decided.getByText(/Decided by Ada Admin on /)).toBeVisible();
  await expect(decided.getByText('Reason: Not signed.')).toBeVisible();
  await expect(decided.getByText(note)).toBeVisible();

  // The investor reads the reason in plain words, the note and what to do.
  await investor.reload();
  const status = investor.getByRole('region', { name: 'Review: Rejected' });
  await expect(status.getByText('A document is not signed. Upload a signed copy of it.')).toBeVisible();
  await expect(status.getByText(note)).toBeVisible();
  await expect(status.getByText(/What to do next:/)).toBeVisible();

  // The files decided on are kept: no Delete, and the card says why.
  const letters = slot(investor, 'Letter of accreditation');
  const kept = card(letters, 'unsigned-letter.pdf');
  await expect(
    kept.getByText('Kept as evidence of the rejection — upload a new file beside it.'),
  ).toBeVisible();
  await expect(kept.getByRole('button', { name: /^Delete/ })).toHaveCount(0);
  await expect(letters.getByRole('button', { name: /^Replace/ })).toHaveCount(0);

  // The history names the decision's files, and each opens.
  const history = investor.getByRole('region', { name: 'History' });
  const rejection = history
    .getByRole('listitem')
    .filter({ hasText: 'Ada Admin rejected the accreditation (not signed)' });
  await expect(rejection.getByRole('button', { name: 'Open unsigned-letter.pdf' })).toBeVisible();
  await expect(rejection.getByRole('button', { name: 'Open licence.png' })).toBeVisible();

  // A signed letter goes beside the kept one: documents needed again, then sent again.
  await uploadLetter(investor, 'letter-with-signature.pdf', ['Letter', 'Signed']);
  await expect(investor.getByRole('heading', { name: 'Review: Documents needed' })).toBeVisible();
  await expect(
    investor
      .getByRole('list', { name: 'Earlier files, not used' })
      .getByRole('button', { name: 'Open unsigned-letter.pdf' }),
  ).toBeVisible();
  await send.click();
  await expect(investor.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();

  // Back in the queue, the new letter marked new; the admin approves.
  await admin.getByRole('link', { name: /^Waiting/ }).click();
  item = queueItem(admin, accreditation.name);
  const fresh = item.getByRole('listitem').filter({ hasText: 'letter-with-signature.pdf' });
  await expect(fresh.getByText('New', { exact: true })).toBeVisible();
  await expect(
    item.getByRole('listitem').filter({ hasText: 'unsigned-letter.pdf' }).getByText('New', { exact: true }),
  ).toHaveCount(0);
  await item.getByRole('button', { name: 'Approve' }).click();
  await expect(admin.getByText(`Approved ${accreditation.name}.`)).toHaveCount(0, { timeout: 30_000 });

  await investor.reload();
  await expect(investor.getByRole('heading', { name: 'Review: Approved' })).toBeVisible();
});

test('the admin reads a document in the viewer beside the decision form, and approves from there', async ({
  loginElsewhere,
}) => {
  test.setTimeout(150_000);
  const investorName = `Vic Viewer ${Date.now()}`;
  const { person: account, page: investor } = await loginElsewhere({ role: 'investor', name: investorName });
  const accreditation = account.accreditation!;
  await investor.getByRole('link', { name: accreditation.name }).click();
  await uploadLetter(investor, 'letter.pdf', ['Page one of the letter', 'Page two']);
  await uploadLicence(investor);
  await checklist(investor).getByRole('button', { name: 'Send for review' }).click();
  await expect(investor.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();

  const { page: admin } = await loginElsewhere({ role: 'admin', name: 'Ada Admin' });
  await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review queue' }).click();
  await findInQueue(admin, investorName);
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
  // Approved on these files: they are kept as its evidence.
  await expect(
    card(slot(investor, 'Letter of accreditation'), 'letter.pdf').getByText(
      'Kept as evidence of the approval — upload a new file beside it.',
    ),
  ).toBeVisible();
});
