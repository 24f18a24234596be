import type { ReactNode } from 'react';

/**
 * A wait the user can see and a screen reader announces. `late`: shown only once it has lasted 300 ms
 * (styles.css), for waits that are usually too short to mention.
 */
export function Loading({ label, late = false }: { label: string; late?: boolean }) {
  return (
    <p className={late ? 'status appears-late' : 'status'} role="status">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

/** A failure in plain words, with what to do about it. */
export function ErrorNotice({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="notice notice-error" role="alert">
      <h2>{title}</h2>
      {children}
    </div>
  );
}
