import { Loading } from '../../../components/ui/status';

/**
 * What the slot says about the files just chosen: that a photo is being checked (only once that has
 * taken a while), notes that are no refusal, then refusals. Nothing at all when there is nothing to
 * say.
 */
export function ChosenFilesLines({
  checking,
  notes,
  refusals,
}: {
  checking: boolean;
  notes: string[];
  refusals: string[];
}) {
  return (
    <>
      {checking && <Loading label="Checking the photo…" late />}
      <MessageList lines={notes} className="notes" role="status" />
      <MessageList lines={refusals} className="refusals" role="alert" />
    </>
  );
}

/** One line a message: `alert` for refusals (said at once), `status` for notes. */
function MessageList({
  lines,
  className,
  role,
}: {
  lines: string[];
  className: string;
  role: 'alert' | 'status';
}) {
  if (lines.length === 0) return null;
  return (
    <ul className={className} role={role}>
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}
