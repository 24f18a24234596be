import type { Capabilities } from '../../shared/api/app-config';
import { findFileType } from '../../shared/assets/file-types';
import { AssetSlot, type AssetSlotProps } from '../features/assets/components/asset-slot';
import { entityFileList, uploadedHereList } from '../features/entities/api/queries';
import type { StoredFile } from '../lib/platform/model';
import { testConfig } from './platform-double';
import { renderWithServices, testServices } from './render';

/** Product 7, whose slots the tests draw. */
export const testProduct = { type: 'Product' as const, id: 7 };
/**
 * Product 7's files as the entity page hands them to the assets feature (lib/file-lists.ts): its pages,
 * or, where the platform lists no files, one list of those uploaded from this browser.
 */
export const productFiles = entityFileList(testProduct);
export const productUploadedHere = uploadedHereList(testProduct);

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
      list={productFiles}
      canEdit
      onForbidden={() => undefined}
      {...props}
    />,
    services,
  );
  return { services, fileType: type };
}
