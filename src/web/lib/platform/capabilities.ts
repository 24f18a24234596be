import type { Capabilities } from '../../../shared/api/app-config';

const storageKey = 'asset-manager.capabilities';

type Learned = Partial<Pick<Capabilities, 'me' | 'entityReads' | 'review' | 'reviewHistory' | 'offerings'>>;

/**
 * What the platform offers: the proxy's findings (app-config), then what answers taught the app during
 * this session (a 404 on an extension means it is not there). Learned facts live in sessionStorage, so
 * a reload does not ask again; signing out clears them with the rest of the session.
 */
export class CapabilityStore {
  #current: Capabilities;

  constructor(fromProxy: Capabilities) {
    this.#current = { ...fromProxy, ...onlyUnknown(fromProxy, stored()) };
  }

  get current(): Readonly<Capabilities> {
    return this.#current;
  }

  /** Records what an answer showed; only what the proxy did not already know. */
  learn(facts: Learned): void {
    const news = onlyUnknown(this.#current, facts);
    if (Object.keys(news).length === 0) return;
    this.#current = { ...this.#current, ...news };
    sessionStorage.setItem(storageKey, JSON.stringify({ ...stored(), ...news }));
  }
}

function stored(): Learned {
  try {
    return JSON.parse(sessionStorage.getItem(storageKey) ?? '{}') as Learned;
  } catch {
    return {}; // A damaged entry is forgotten: the app learns again.
  }
}

/** The proxy's answer (probe or operator) wins; answers only fill in what it did not know. */
function onlyUnknown(known: Capabilities, facts: Learned): Learned {
  return Object.fromEntries(
    Object.entries(facts).filter(
      ([name, value]) => known[name as keyof Learned] === null && value !== undefined,
    ),
  ) as Learned;
}
