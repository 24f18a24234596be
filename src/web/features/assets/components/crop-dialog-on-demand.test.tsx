import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { findFileType } from '../../../../shared/assets/file-types';
import { CropDialogOnDemand, loadCropDialog } from './crop-dialog-on-demand';

const aspect = findFileType('drivers_license')!.cropAspect!;
const props = {
  src: 'blob:photo',
  fileName: 'licence.jpg',
  aspect,
  saveLabel: 'Crop and upload',
  onCancel: () => undefined,
  onSave: () => undefined,
};

// One test in this file: React's `lazy` renders at once after its first load, so a test that showed
// the lazy path first would hide what this one checks.
describe('CropDialogOnDemand', () => {
  it('opens in the same render once its code is in: no Suspense, so no wait on React’s 300 ms reveal throttle', async () => {
    await loadCropDialog();
    render(<CropDialogOnDemand {...props} />);
    expect(screen.getByRole('dialog', { name: 'Crop licence.jpg' })).toBeTruthy();
  });
});
