import { decisionKey, waitingDecisions } from './review-queries';

const said = { approved: 'Approved', rejected: 'Rejected' } as const;

/**
 * "Approved Accreditation of Ivy Investor — Undo" while a decision waits out its undo window, and the
 * reason if the platform then refused it (the accreditation is back in the queue).
 */
export function DecisionNotices() {
  const waiting = waitingDecisions.useWaiting();
  function undo(id: number) {
    waitingDecisions.undo(decisionKey(id));
    requestAnimationFrame(() => document.querySelector<HTMLElement>(`#accreditation-${id} h2`)?.focus());
  }
  return (
    <div className="decision-notices" role="status" aria-live="polite">
      {waiting.map(({ key, item: { accreditation, status }, failure }) =>
        failure ? (
          <p key={key} className="field-error">
            {failure}{' '}
            <button type="button" className="button small" onClick={() => waitingDecisions.undo(key)}>
              Dismiss<span className="visually-hidden"> this message</span>
            </button>
          </p>
        ) : (
          <p key={key} className="notice" {...waitingDecisions.holdProps(key)}>
            {said[status]} {accreditation.name}. The investor is told in a few seconds.{' '}
            <button type="button" className="button small" onClick={() => undo(accreditation.id)}>
              Undo<span className="visually-hidden"> the decision on {accreditation.name}</span>
            </button>
          </p>
        ),
      )}
    </div>
  );
}
