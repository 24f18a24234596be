import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { fileTypesFor } from '../../../shared/assets/file-types';
import { AssetSlot } from '../../features/assets/components/asset-slot';
import { entityKeys, entityQuery, meQuery } from '../../features/entities/api/queries';
import { kindOfSlug } from '../../features/entities/entity-kinds';
import { usePageTitle } from '../../components/ui/page-title';
import { ErrorNotice, Loading } from '../../components/ui/status';
import { messageOf } from '../../lib/api-error';
import { useServices } from '../../lib/services';
import { NotFoundPage } from './not-found-page';

/** `/products/7`, `/accreditations/3`, …: one entity and its files. */
export function EntityPage() {
  const params = useParams();
  const kind = kindOfSlug(params.kind ?? '');
  const id = Number(params.id);
  if (!kind || !Number.isSafeInteger(id) || id <= 0) return <NotFoundPage />;
  return <Entity type={kind.type} label={kind.singular} id={id} />;
}

function Entity({ type, label, id }: { type: Parameters<typeof entityQuery>[1]; label: string; id: number }) {
  const { api } = useServices();
  const entity = useQuery(entityQuery(api, type, id));
  const me = useQuery(meQuery(api));
  usePageTitle(entity.data ? entity.data.name : label);

  if (entity.isPending) return <Loading label={`Loading the ${label.toLowerCase()}…`} />;
  if (entity.isError) {
    return (
      <ErrorNotice title={`This ${label.toLowerCase()} could not be opened`}>
        <p>{messageOf(entity.error)}</p>
        <Link to="/">Back to your list</Link>
      </ErrorNotice>
    );
  }
  const owned = me.data?.entities.some((e) => e.type === type && e.id === id) ?? false;
  const assetsOf = (fileType: string) => entity.data.assets.filter((a) => a.file_type === fileType);
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Home</Link> <span aria-hidden="true">/</span> {label}
      </nav>
      <h1>
        <span className="eyebrow">{label}</span> {entity.data.name}
      </h1>
      {!owned && <p className="hint">You can view these files; only the owner can change them.</p>}
      <div className="slots">
        {fileTypesFor(type).map((fileType) => (
          <AssetSlot
            key={fileType.fileType}
            entity={{ type, id }}
            fileType={fileType}
            assets={assetsOf(fileType.fileType)}
            entityKey={entityKeys.detail(type, id)}
            canEdit={owned}
          />
        ))}
      </div>
    </>
  );
}
