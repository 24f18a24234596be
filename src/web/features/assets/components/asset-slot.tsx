import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import type { AssetableType } from '../../../../shared/api/me';
import type { Asset } from '../../../../shared/assets/asset';
import type { Crop } from '../../../../shared/assets/crop';
import {
  checkFileForSlot,
  checkImagePixels,
  describeAccepts,
  maxBytesFor,
  type FileTypeInfo,
} from '../../../../shared/assets/file-types';
import { useUploads } from '../upload/use-uploads';
import { AssetCard } from './asset-card';
import { UploadList } from './upload-list';
import { DropAreaPlaceholder } from './drop-area-placeholder';

const FileDrop = lazy(() => import('./file-drop'));
const CropDialog = lazy(() => import('./crop-dialog'));

const megabytes = (bytes: number) => `${Math.floor(bytes / 1024 / 1024)} MB`;

/** The upright size of an image, read by the browser without drawing it on a canvas. */
function imageSize(url: string): Promise<{ width: number; height: number } | null> {
  return new Promise((resolve) => {
    const image = new Image();
    image.onload = () => resolve({ width: image.naturalWidth, height: image.naturalHeight });
    image.onerror = () => resolve(null);
    image.src = url;
  });
}

interface Pending {
  file: File;
  url: string;
}

/**
 * One file type of one entity: what it takes, the files already there, and uploads. Images pass
 * through the crop dialog first, one at a time; everything is checked against the catalog before a
 * byte is sent, and refusals say why.
 */
export function AssetSlot({
  entity,
  fileType,
  assets,
  entityKey,
  canEdit,
}: {
  entity: { type: AssetableType; id: number };
  fileType: FileTypeInfo;
  assets: Asset[];
  entityKey: QueryKey;
  canEdit: boolean;
}) {
  const queryClient = useQueryClient();
  const [refusals, setRefusals] = useState<string[]>([]);
  const [toCrop, setToCrop] = useState<Pending[]>([]);
  const uploads = useUploads({
    assetableType: entity.type,
    assetableId: entity.id,
    fileType: fileType.fileType,
    onUploaded: () => void queryClient.invalidateQueries({ queryKey: entityKey }),
  });
  const image = fileType.documentType === 'image';
  const headingId = `slot-${fileType.fileType}`;
  const current = toCrop[0];

  // Every object URL made for the crop dialog is released: when its file leaves the queue, or when
  // the page goes away with files still waiting.
  const waiting = useRef<Pending[]>([]);
  useEffect(() => {
    waiting.current = toCrop;
  }, [toCrop]);
  useEffect(() => () => waiting.current.forEach((p) => URL.revokeObjectURL(p.url)), []);

  async function accept(files: File[]) {
    const reasons: string[] = [];
    const images: Pending[] = [];
    for (const file of files) {
      const reason = checkFileForSlot(file, fileType);
      if (reason) {
        reasons.push(reason);
      } else if (image) {
        const url = URL.createObjectURL(file);
        const size = await imageSize(url);
        const tooBig = size
          ? checkImagePixels(file.name, size)
          : `${file.name} is not an image the browser can read.`;
        if (tooBig) {
          URL.revokeObjectURL(url);
          reasons.push(tooBig);
        } else images.push({ file, url });
      } else {
        uploads.start(file, { private: fileType.privateByDefault, meta: {} });
      }
    }
    setRefusals(reasons);
    if (images.length > 0) setToCrop((queue) => [...queue, ...images]);
  }

  function finishCrop(crop: Crop | null | undefined) {
    if (!current) return;
    URL.revokeObjectURL(current.url);
    if (crop !== undefined) {
      uploads.start(current.file, { private: fileType.privateByDefault, meta: crop ? { crop } : {} });
    }
    setToCrop((queue) => queue.slice(1));
  }

  return (
    <section className="slot card" aria-labelledby={headingId}>
      <div className="slot-head">
        <h2 id={headingId}>{fileType.label}</h2>
        <p className="hint">
          {fileType.purpose}. Accepts {describeAccepts(fileType)} up to {megabytes(maxBytesFor(fileType))}
          {fileType.privateByDefault ? '; private when uploaded' : ''}.
        </p>
      </div>

      {assets.length > 0 ? (
        <ul className="asset-list" aria-label="Files">
          {assets.map((asset) => (
            <AssetCard
              key={asset.id}
              asset={asset}
              entityType={entity.type}
              entityKey={entityKey}
              canEdit={canEdit}
            />
          ))}
        </ul>
      ) : (
        <p className="empty-slot">No {fileType.label.toLowerCase()} yet.</p>
      )}

      {canEdit && (
        <>
          <Suspense fallback={<DropAreaPlaceholder fileType={fileType} />}>
            <FileDrop fileType={fileType} label={fileType.label} onFiles={(files) => void accept(files)} />
          </Suspense>
          {refusals.length > 0 && (
            <ul className="refusals" role="alert">
              {refusals.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          )}
          <UploadList uploads={uploads} />
        </>
      )}

      {current && fileType.cropAspect && (
        <Suspense fallback={null}>
          <CropDialog
            key={current.url}
            src={current.url}
            fileName={current.file.name}
            aspect={fileType.cropAspect}
            saveLabel="Crop and upload"
            onCancel={() => finishCrop(undefined)}
            onSave={finishCrop}
          />
        </Suspense>
      )}
    </section>
  );
}
