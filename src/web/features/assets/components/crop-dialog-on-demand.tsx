import { lazy, Suspense, useState } from 'react';
import type { CropDialogProps } from './crop-dialog';

/**
 * The crop dialog's code (react-easy-crop) is not part of the first page (performance.md W2): it is
 * fetched when images are chosen (`loadCropDialog`, while they are read and checked) or when a crop
 * is edited.
 */
let loaded: typeof import('./crop-dialog').default | undefined;
export const loadCropDialog = () =>
  import('./crop-dialog').then((module) => {
    loaded = module.default;
    return module;
  });
const LazyCropDialog = lazy(loadCropDialog);

/**
 * The crop dialog, rendered as it is once its code is in. A `lazy` component suspends on its first
 * render even when its code is already loaded, and React then holds new Suspense content back by its
 * 300 ms reveal throttle: a chosen photo's dialog came up 300 ms after the photo check.
 */
export function CropDialogOnDemand(props: CropDialogProps) {
  // Chosen once per dialog: a switch from the lazy to the loaded one would remount it while open.
  const [CropDialog] = useState(() => loaded ?? LazyCropDialog);
  return (
    <Suspense fallback={null}>
      <CropDialog {...props} />
    </Suspense>
  );
}
