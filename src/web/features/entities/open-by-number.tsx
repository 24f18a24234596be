import { useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { recentlyOpened } from '../../lib/browser-memory';
import { entityHref, entityKinds, kindOfType } from '../../../shared/entities/entity-kinds';

/**
 * The way in on a platform that does not say what the person owns (no `/me`), or lists no offerings:
 * open an entity by its kind and number, and the ones opened lately in this browser.
 */
/** `intro` says why the app asks for a number on this platform. */
export function OpenByNumber({ intro }: { intro: string }) {
  const navigate = useNavigate();
  const [type, setType] = useState(entityKinds[1]!.type);
  const [number, setNumber] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const kindId = useId();
  const numberId = useId();
  const problemId = useId();
  const recent = recentlyOpened();
  return (
    <>
      <p className="lead">{intro}</p>
      <form
        className="card open-by-number"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const id = Number(number.trim());
          if (!/^\d+$/.test(number.trim()) || !Number.isSafeInteger(id) || id <= 0) {
            setProblem('Enter the number as digits only, for example 7.');
            return;
          }
          void navigate(entityHref(type, id));
        }}
      >
        <div className="field">
          <label htmlFor={kindId}>What to open</label>
          <select id={kindId} value={type} onChange={(event) => setType(event.target.value as typeof type)}>
            {entityKinds.map((kind) => (
              <option key={kind.type} value={kind.type}>
                {kind.singular}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={numberId}>Number</label>
          <input
            id={numberId}
            inputMode="numeric"
            autoComplete="off"
            value={number}
            aria-invalid={problem !== null}
            aria-describedby={problem ? problemId : undefined}
            onChange={(event) => {
              setNumber(event.target.value);
              setProblem(null);
            }}
          />
          {problem && (
            <p id={problemId} className="field-error">
              {problem}
            </p>
          )}
        </div>
        <button type="submit" className="button primary">
          Open
        </button>
      </form>
      <section className="card" aria-labelledby="recent-heading">
        <h2 id="recent-heading">Opened recently in this browser</h2>
        {recent.length === 0 ? (
          <p className="empty">Nothing yet. What you open appears here until you sign out.</p>
        ) : (
          <ul className="link-list">
            {recent.map((entity) => (
              <li key={`${entity.type}:${entity.id}`}>
                <Link to={entityHref(entity.type, entity.id)}>
                  {kindOfType(entity.type).singular} {entity.id}
                  {entity.name ? ` — ${entity.name}` : ''}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
