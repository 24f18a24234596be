import type { Capabilities } from '../../shared/api/app-config';
import { findFileType } from '../../shared/assets/file-types';
import { AssetSlot, type AssetSlotProps } from '../features/assets/components/asset-slot';
import type { StoredFile } from '../lib/platform/model';
import { testConfig } from './platform-double';
import { renderWithServices, testServices } from './render';

/** Product 7, whose slots the tests draw, and the query that lists its files. */
export const testProduct = { type: 'Product' as const, id: 7 };
export const productFilesKey = ['files', 'Product', 7];

/** A file of product 7 as the app holds it, with a version and an ETag of its own. */
export function productFile(id: number, name: string, fields: Partial<StoredFile> = {}): StoredFile {
  return {
    id,
    name,
    fileType: 'pitch_deck',
    entity: testProduct,
    private: false,
    meta: {},
    version: `v${id}`,
    etag: `"e${id}"`,
    ...fields,
  };
}

/**
 * One slot of product 7 that the person may upload to, on the MSW platform double with the given
 * capabilities; `props` replace any of the slot's own. Returns the services and the file type.
 */
export function renderSlot({
  fileType = 'pitch_deck',
  capabilities = {},
  ...props
}: Partial<Omit<AssetSlotProps, 'fileType'>> & {
  fileType?: string;
  capabilities?: Partial<Capabilities>;
} = {}) {
  const type = findFileType(fileType);
  if (!type) throw new Error(`No file type ${fileType} in the catalog`);
  const services = testServices(testConfig(capabilities));
  renderWithServices(
    <AssetSlot
      entity={testProduct}
      fileType={type}
      files={[]}
      listKey={productFilesKey}
      canEdit
      onForbidden={() => undefined}
      {...props}
    />,
    services,
  );
  return { services, fileType: type };
}
