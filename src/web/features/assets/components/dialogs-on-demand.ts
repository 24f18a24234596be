import { onDemand } from '../../../lib/on-demand';

/**
 * The dialogs that follow a choice of images, fetched only then (performance.md W2: not part of the
 * first page): the crop dialog (react-easy-crop) while the images are read and checked, or when a
 * crop is edited; the photo warning only when a check found a problem.
 */
export const cropDialog = onDemand(() => import('./crop-dialog'));
export const photoWarning = onDemand(() => import('../photo-check/photo-warning'));
