/** Shown when the app cannot even load its settings: nothing else can work, so say so plainly. */
export function StartupFailure({ error }: { error: unknown }) {
  return (
    <main className="page narrow">
      <div className="notice notice-error" role="alert">
        <h1>Asset Manager could not start</h1>
        <p>{error instanceof Error ? error.message : 'Its settings could not be loaded.'}</p>
        <button type="button" className="button primary" onClick={() => window.location.reload()}>
          Try again
        </button>
      </div>
    </main>
  );
}
