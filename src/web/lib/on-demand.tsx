import { type ComponentType, lazy, Suspense, useState } from 'react';

/**
 * A component whose code is not part of the first page, loaded when it is about to be needed
 * (`preload`) and rendered at once when it is in. Plain `lazy` suspends on its first render even when
 * its code is already loaded, and React then holds the new Suspense content back by its 300 ms reveal
 * throttle: a dialog came up 300 ms after everything it needed was there. Before its code is in,
 * `Component` is the lazy one (nothing shown until then).
 */
export function onDemand<Props extends object>(load: () => Promise<{ default: ComponentType<Props> }>) {
  let loaded: ComponentType<Props> | undefined;
  const preload = () =>
    load().then((module) => {
      loaded = module.default;
      return module;
    });
  const Lazy = lazy(preload);
  function OnDemand(props: Props) {
    // Chosen once per mount: a switch from the lazy one to the loaded one would remount it while open.
    const [Loaded] = useState<ComponentType<Props>>(() => loaded ?? Lazy);
    return (
      <Suspense fallback={null}>
        <Loaded {...props} />
      </Suspense>
    );
  }
  return { preload, Component: OnDemand };
}
