import type { FileList } from '../../../lib/file-lists';
import type { FileTypeInfo } from '../../../../shared/assets/file-types';
import { documentLabel, sideOf } from '../../../lib/document-label';
import type { StoredFile } from '../../../lib/platform/model';
import { AssetCard } from './asset-card';

interface CardProps {
  list: FileList;
  canEdit: boolean;
  onForbidden: () => void;
  keptAs?: (file: StoredFile) => string | undefined;
}

/**
 * A slot's files: the one in use (a one-file slot) or all of them, or a line saying there is none
 * yet; then, in a one-file slot, the earlier files apart, as not used.
 */
export function SlotFiles({
  fileType,
  shown,
  inUse,
  earlier,
  ...card
}: CardProps & {
  fileType: FileTypeInfo;
  /** The files listed, less those whose delete waits out its undo window. */
  shown: StoredFile[];
  inUse: StoredFile | undefined;
  earlier: StoredFile[];
}) {
  return (
    <>
      {shown.length > 0 ? (
        <ul className="asset-list" aria-label="Files">
          {(inUse ? [inUse] : shown).map((file) => (
            <SlotCard
              key={file.id}
              file={file}
              {...card}
              kind={sideOf(file) ? documentLabel(file) : undefined}
            />
          ))}
        </ul>
      ) : (
        <p className="empty-slot">No {fileType.label.toLowerCase()} yet</p>
      )}
      {earlier.length > 0 && <EarlierFiles fileType={fileType} earlier={earlier} {...card} />}
    </>
  );
}

/** Files of a one-file slot older than the one in use: kept apart, to delete when no longer needed. */
function EarlierFiles({
  fileType,
  earlier,
  ...card
}: CardProps & { fileType: FileTypeInfo; earlier: StoredFile[] }) {
  return (
    <div className="earlier-files">
      <h3>
        {earlier.length === 1 ? 'An earlier file, not used' : `${earlier.length} earlier files, not used`}
      </h3>
      <p className="hint">
        Only the newest {fileType.label.toLowerCase()} is used.{' '}
        {earlier.every((file) => card.keptAs?.(file))
          ? 'These stay: a decision was made on them.'
          : 'Delete these when you no longer need them.'}
      </p>
      <ul className="asset-list" aria-label="Earlier files, not used">
        {earlier.map((file) => (
          <SlotCard key={file.id} file={file} {...card} />
        ))}
      </ul>
    </div>
  );
}

/** One file's card in a slot, told whether it is kept as a decision's evidence. */
function SlotCard({ file, kind, ...card }: CardProps & { file: StoredFile; kind?: string }) {
  return (
    <AssetCard
      file={file}
      list={card.list}
      canEdit={card.canEdit}
      onForbidden={card.onForbidden}
      kind={kind}
      keptAs={card.keptAs?.(file)}
    />
  );
}
