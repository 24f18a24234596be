import type { QualityIssue } from '../../../shared/assets/photo-quality';
import { flagWords } from '../../lib/photo-quality-words';

/**
 * What the platform's photo check found on a file (issue 31), as flags for a reviewer: "Possibly
 * blurry". Nothing at all when there is nothing to say, or the platform does not check.
 */
export function QualityFlags({ issues }: { issues: readonly QualityIssue[] | undefined }) {
  if (!issues || issues.length === 0) return null;
  return (
    <span className="quality-flags">
      {issues.map((issue) => (
        <span key={issue} className="badge badge-flag">
          {flagWords(issue)}
        </span>
      ))}
    </span>
  );
}
