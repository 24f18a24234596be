import type { Page } from '@playwright/test';
import { expect } from './app';
import { documentPhoto, multiPagePdf } from './files';
import { card, cropAndSend, slot } from './page-parts';

/** The investor's checklist on an accreditation's page. */
export const checklist = (investor: Page) =>
  investor.getByRole('region', { name: 'What your accreditation needs' });

/** Uploads a letter of accreditation (a PDF with these pages) on the accreditation's page. */
export async function uploadLetter(investor: Page, name: string, pages: string[]) {
  const letters = slot(investor, 'Letter of accreditation');
  await letters.getByTestId('input-letter_of_accreditation').setInputFiles(await multiPagePdf(name, pages));
  await expect(card(letters, name)).toBeVisible();
}

/**
 * Uploads one photo showing both sides of the driver's licence, through the crop dialog: a sharp
 * photo of readable size, so the photo check (issue 31) has nothing to say.
 */
export async function uploadLicence(investor: Page, name = 'licence.png') {
  const licence = slot(investor, "Driver's licence");
  await licence.getByRole('radio', { name: 'One photo shows both sides' }).check();
  await licence.getByTestId('input-drivers_license').setInputFiles(await documentPhoto(name));
  await investor
    .getByRole('dialog', { name: `Crop ${name}` })
    .getByRole('button', { name: cropAndSend })
    .click();
  await expect(card(licence, name)).toContainText("Driver's licence — front and back");
}

/** What an accreditation needs (a letter, the licence), uploaded and sent for review. */
export async function sendForReview(investor: Page, letter = 'letter.pdf') {
  await uploadLetter(investor, letter, ['Accredited investor']);
  await uploadLicence(investor);
  await checklist(investor).getByRole('button', { name: 'Send for review' }).click();
  await expect(investor.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();
}
