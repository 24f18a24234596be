import { useQuery, type QueryKey } from '@tanstack/react-query';
import { lazy, Suspense, useId, useState } from 'react';
import type { AssetableType } from '../../../../shared/api/me';
import type { Asset } from '../../../../shared/assets/asset';
import { cropOf, type Crop } from '../../../../shared/assets/crop';
import { findFileType } from '../../../../shared/assets/file-types';
import { Dialog } from '../../../components/ui/dialog';
import { messageOf } from '../../../lib/api-error';
import { downloadUrl, type Variant } from '../../../lib/platform-api';
import { useServices } from '../../../lib/services';
import { downloadUrlQuery, useDeleteAsset, useUpdateAsset } from '../api/asset-queries';
import { audienceOf } from '../audience';

const CropDialog = lazy(() => import('./crop-dialog'));

/** Previews are small renditions, never originals (performance.md W3). */
const previewWidth = 320;

const isImage = (asset: Asset) =>
  asset.content_type?.startsWith('image/') ?? findFileType(asset.file_type)?.documentType === 'image';

function typeBadge(asset: Asset) {
  const extension = /\.([a-z0-9]{1,5})$/i.exec(asset.name)?.[1];
  if (extension) return extension.toUpperCase();
  return asset.content_type?.split('/')[1]?.toUpperCase() ?? 'FILE';
}

/** What a card shows: the image's cropped or preview rendition, a PDF's thumbnail, or nothing. */
function previewSource(asset: Asset): { id: number; variant: Variant } | null {
  if (isImage(asset)) return { id: asset.id, variant: cropOf(asset.meta) ? 'cropped' : 'preview' };
  if (asset.thumbnail_id) return { id: Number(asset.thumbnail_id), variant: 'preview' };
  return null;
}

function TypeIcon({ asset }: { asset: Asset }) {
  return (
    <div className="preview preview-icon" aria-hidden="true">
      {typeBadge(asset)}
    </div>
  );
}

function Preview({ asset }: { asset: Asset }) {
  const { api } = useServices();
  const source = previewSource(asset);
  const [broken, setBroken] = useState(false);
  const url = useQuery({
    ...downloadUrlQuery(
      api,
      { id: source?.id ?? asset.id, updated_at: asset.updated_at },
      source?.variant ?? 'preview',
      previewWidth,
    ),
    enabled: source !== null,
  });
  if (!source || !url.data || broken) return <TypeIcon asset={asset} />;
  return (
    <img
      className="preview"
      src={url.data}
      alt={`Preview of ${asset.name}`}
      loading="lazy"
      onError={() => setBroken(true)}
    />
  );
}

function RenameForm({
  asset,
  onRename,
  onDone,
}: {
  asset: Asset;
  onRename: (name: string) => void;
  onDone: () => void;
}) {
  const [name, setName] = useState(asset.name);
  const inputId = useId();
  return (
    <form
      className="rename"
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = name.trim();
        if (trimmed && trimmed !== asset.name) onRename(trimmed);
        onDone();
      }}
    >
      <label htmlFor={inputId} className="visually-hidden">
        New name for {asset.name}
      </label>
      <input
        id={inputId}
        value={name}
        maxLength={255}
        autoFocus
        onChange={(event) => setName(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onDone();
        }}
      />
      <button type="submit" className="button small">
        Save
      </button>
      <button type="button" className="button small" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

export function AssetCard({
  asset,
  entityType,
  entityKey,
  canEdit,
}: {
  asset: Asset;
  entityType: AssetableType;
  entityKey: QueryKey;
  canEdit: boolean;
}) {
  const { api } = useServices();
  const update = useUpdateAsset(entityKey);
  const remove = useDeleteAsset(entityKey);
  const [renaming, setRenaming] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [cropSource, setCropSource] = useState<string | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);
  // The switch follows the click at once, before the cache's optimistic update lands a tick later.
  const [pendingPrivate, setPendingPrivate] = useState<boolean | null>(null);
  const isPrivate = pendingPrivate ?? asset.private;
  const fileType = findFileType(asset.file_type);
  const image = isImage(asset);
  const privateId = useId();
  const audienceId = useId();

  async function open() {
    setOpenError(null);
    // Download URLs expire within minutes: ask for one at the moment of the click.
    try {
      const url = await downloadUrl(api, asset.id);
      window.open(url, '_blank', 'noopener,noreferrer');
    } catch (error) {
      setOpenError(messageOf(error));
    }
  }

  async function editCrop() {
    setOpenError(null);
    try {
      setCropSource(await downloadUrl(api, asset.id));
    } catch (error) {
      setOpenError(messageOf(error));
    }
  }

  function saveCrop(crop: Crop | null) {
    setCropSource(null);
    const meta = { ...asset.meta };
    if (crop) meta.crop = crop;
    else delete meta.crop;
    update.mutate({ id: asset.id, changes: { meta } });
  }

  const failure = update.error ?? remove.error;
  return (
    <li className="asset-card">
      <Preview asset={asset} />
      <div className="asset-body">
        {renaming ? (
          <RenameForm
            asset={asset}
            onRename={(name) => update.mutate({ id: asset.id, changes: { name } })}
            onDone={() => setRenaming(false)}
          />
        ) : (
          <p className="asset-name">{asset.name}</p>
        )}
        <p className="asset-facts">
          {asset.private ? <span className="badge badge-private">Private</span> : null}{' '}
          {asset.size !== undefined ? `${Math.max(1, Math.round(asset.size / 1024))} KB` : null}
        </p>
        {canEdit ? (
          <div className="private-toggle">
            <input
              type="checkbox"
              role="switch"
              id={privateId}
              checked={isPrivate}
              aria-describedby={audienceId}
              onChange={(event) => {
                const wanted = event.target.checked;
                setPendingPrivate(wanted);
                update.mutate(
                  { id: asset.id, changes: { private: wanted } },
                  { onSettled: () => setPendingPrivate(null) },
                );
              }}
            />
            <label htmlFor={privateId}>Private</label>
            <p id={audienceId} className="hint">
              {audienceOf(entityType, isPrivate)}
            </p>
          </div>
        ) : (
          <p className="hint">{audienceOf(entityType, asset.private, false)}</p>
        )}
        {failure && (
          <p className="field-error" role="alert">
            {remove.error ? 'Not deleted: ' : 'The change was undone: '}
            {messageOf(failure)}
          </p>
        )}
        {openError && (
          <p className="field-error" role="alert">
            {openError}
          </p>
        )}
        <div className="asset-actions">
          <button type="button" className="button small" onClick={() => void open()}>
            Open<span className="visually-hidden"> {asset.name}</span>
          </button>
          {canEdit && !renaming && (
            <button type="button" className="button small" onClick={() => setRenaming(true)}>
              Rename<span className="visually-hidden"> {asset.name}</span>
            </button>
          )}
          {canEdit && image && fileType?.cropAspect && (
            <button type="button" className="button small" onClick={() => void editCrop()}>
              Edit crop<span className="visually-hidden"> of {asset.name}</span>
            </button>
          )}
          {canEdit && (
            <button
              type="button"
              className="button small danger"
              disabled={remove.isPending}
              onClick={() => setConfirmingDelete(true)}
            >
              {remove.isPending ? 'Deleting…' : 'Delete'}
              <span className="visually-hidden"> {asset.name}</span>
            </button>
          )}
        </div>
      </div>
      {confirmingDelete && (
        <Dialog title={`Delete ${asset.name}?`} onClose={() => setConfirmingDelete(false)}>
          <p>The file and every link to it stop working. This cannot be undone.</p>
          <div className="dialog-actions">
            <button type="button" className="button" autoFocus onClick={() => setConfirmingDelete(false)}>
              Keep it
            </button>
            <button
              type="button"
              className="button danger-solid"
              onClick={() => {
                setConfirmingDelete(false);
                remove.mutate(asset.id);
              }}
            >
              Delete {asset.name}
            </button>
          </div>
        </Dialog>
      )}
      {cropSource && fileType?.cropAspect && (
        <Suspense fallback={null}>
          <CropDialog
            src={cropSource}
            fileName={asset.name}
            aspect={fileType.cropAspect}
            initial={cropOf(asset.meta)}
            saveLabel="Save crop"
            onCancel={() => setCropSource(null)}
            onSave={saveCrop}
          />
        </Suspense>
      )}
    </li>
  );
}
