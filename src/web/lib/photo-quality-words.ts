import type { QualityIssue } from '../../shared/assets/photo-quality';

/**
 * The photo check's findings in words (issue 31): for the investor before the upload, what is wrong
 * and what to do; for the reviewer, a short flag. `document` is "licence" or "bill".
 */
export function problemWords(issue: QualityIssue, document: string): string {
  switch (issue) {
    case 'blurry':
      return 'The photo is blurry — hold the phone steady and let it focus.';
    case 'dark':
      return 'The photo is too dark — take it in better light.';
    case 'overexposed':
      return 'The photo is too bright and the print is washed out — move out of direct light or turn the flash off.';
    case 'glare':
      return `Part of the ${document} is lost to glare — tilt it away from the light.`;
    case 'low_resolution':
      return `The photo is too small to read the print — come closer so the ${document} fills the frame.`;
  }
}

export function flagWords(issue: QualityIssue): string {
  switch (issue) {
    case 'blurry':
      return 'Possibly blurry';
    case 'dark':
      return 'Possibly too dark';
    case 'overexposed':
      return 'Possibly overexposed';
    case 'glare':
      return 'Possibly glare';
    case 'low_resolution':
      return 'Possibly too small to read';
  }
}
