import type { ReactNode } from 'react';

/** A wait the user can see and a screen reader announces. */
export function Loading({ label }: { label: string }) {
  return (
    <p className="status" role="status">
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
