import type { QueryClient } from '@tanstack/react-query';
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { AppConfig } from '../../shared/api/app-config';
import type { Platform } from './platform/platform';
import type { Session } from './session';

/** What every page may use, created once at start (main.tsx) and handed down through context. */
export interface Services {
  config: AppConfig;
  session: Session;
  platform: Platform;
  queryClient: QueryClient;
}

export const ServicesContext = createContext<Services | null>(null);

export function useServices(): Services {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('useServices must be used inside ServicesContext');
  return services;
}

/** Re-renders when the user signs in or out. */
export function useSignedIn(): boolean {
  const { session } = useServices();
  return useSyncExternalStore(
    (listener) => session.subscribe(listener),
    () => session.signedIn,
  );
}

/** Re-renders when the session ends while a page is in use (the platform refused to renew it). */
export function useSessionEnded(): boolean {
  const { session } = useServices();
  return useSyncExternalStore(
    (listener) => session.subscribe(listener),
    () => session.ended,
  );
}
