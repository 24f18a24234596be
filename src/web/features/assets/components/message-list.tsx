/**
 * Lines about the files just chosen, one a line: `alert` for refusals (said at once), `status` for
 * notes that are no refusal. Nothing at all when there is nothing to say.
 */
export function MessageList({
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
