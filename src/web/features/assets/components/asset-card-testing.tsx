import type { StoredFile } from '../../../lib/platform/model';
import { platformUrl, testConfig } from '../../../testing/platform-double';
import { renderWithServices, testServices } from '../../../testing/render';
import { AssetCard } from './asset-card';
import { shownOnly } from '../../../lib/file-lists';

/** What the card tests and the viewer's share: one card, read-only, on a platform with renditions. */

/** A pitch deck whose thumbnail (asset 12) the platform makes. */
export const deck: StoredFile = {
  id: 11,
  name: 'deck.pdf',
  fileType: 'pitch_deck',
  entity: { type: 'Product', id: 7 },
  private: false,
  meta: {},
  thumbnailId: 12,
  contentType: 'application/pdf',
  version: '2025-01-01T00:00:00.000Z',
};

/** The signed address of the deck's thumbnail at a card's preview width. */
export const thumbnailUrl = `${platformUrl}/files/assets/12?variant=preview&width=320&expires=1&signature=s`;

export function renderCard(file: StoredFile) {
  renderWithServices(
    <ul>
      <AssetCard file={file} list={shownOnly(['files'])} canEdit={false} onForbidden={() => undefined} />
    </ul>,
    testServices(testConfig({ renditions: true })),
  );
}
