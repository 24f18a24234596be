import { afterEach, describe, expect, it } from 'vitest';
import type { StoredFile } from '../../../lib/platform/model';
import { filesBeside } from './viewer-files';

/** Which files Previous and Next step through, from the list the page shows. */

const fileOf = (id: number, entityId: number): StoredFile => ({
  id,
  name: `${id}.pdf`,
  fileType: 'letter_of_accreditation',
  entity: { type: 'Accreditation', id: entityId },
  private: true,
  meta: {},
  version: 'v1',
});

/** Cards on the page, in this order, as the entity page or the review queue draws them. */
function cards(...ids: number[]) {
  document.body.innerHTML = ids.map((id) => `<li id="file-${id}"></li>`).join('');
}
afterEach(() => (document.body.innerHTML = ''));

describe('the files beside the one opened', () => {
  it("keeps only the opened file's accreditation, in the cards' order", () => {
    const [a, b, c, d] = [fileOf(1, 10), fileOf(2, 10), fileOf(3, 11), fileOf(4, 10)];
    cards(4, 3, 1, 2);
    expect(filesBeside(a, [a, b, c, d]).map((f) => f.id)).toEqual([4, 1, 2]);
  });

  it('leaves out files without a card (waiting to be deleted) and counts a file once', () => {
    const [a, b, c] = [fileOf(1, 10), fileOf(2, 10), fileOf(3, 10)];
    cards(1, 3);
    expect(filesBeside(a, [a, b, c, a]).map((f) => f.id)).toEqual([1, 3]);
  });

  it('is the opened file alone without a list', () => {
    const a = fileOf(1, 10);
    expect(filesBeside(a, [])).toEqual([a]);
  });
});
