import type { AssetsContext } from '../assets/assets-context';
import type { EntitiesContext } from '../entities/entities-context';
import type { PdfThumbnailPool } from '../media/pdf-thumbnail-pool';
import type { OAuthContext } from '../oauth/oauth-context';
import type { UsersContext } from '../users/me-routes';

/**
 * Everything the route modules are given, built once by `buildPlatform` and passed down explicitly.
 * Each area declares what it needs (`OAuthContext`, `AssetsContext`, …) in its own folder, so no
 * area knows another's needs; only the composition root knows them all.
 */
export interface PlatformContext extends OAuthContext, AssetsContext, EntitiesContext, UsersContext {
  /** Worker threads that render page 1 of uploaded PDFs (thumbnails); never the main thread. */
  pdfThumbnails: PdfThumbnailPool;
}
