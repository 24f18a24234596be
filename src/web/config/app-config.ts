import { unknownCapabilities, type AppConfig } from '../../shared/api/app-config';
import { entityPaths } from '../../shared/api/entities';
import { assetableTypes } from '../../shared/api/assetable';
import { appConfigElementId, proxyPaths } from '../../shared/api/proxy';

export type { AppConfig };

const required = [
  'platformBaseUrl',
  'platformAuthUrl',
  'apiBaseUrl',
  'clientId',
  'scope',
  'redirectUri',
  'tokenEndpoint',
  'revokeEndpoint',
] as const;

/**
 * The settings the proxy wrote into the page (index.html's `app-config` data block, a data block the
 * CSP lets be since it never runs), or null when the page carries none.
 */
function configInPage(): unknown {
  const text = document.getElementById(appConfigElementId)?.textContent?.trim();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * The same settings from the proxy's `/app-config.json`. No cache options: the page may already have
 * asked for it (`<link rel="preload">`), and a request that differs from that one would ask again.
 * The proxy answers it `no-store`.
 */
async function fetchConfig(): Promise<unknown> {
  const response = await fetch(new URL(proxyPaths.appConfig, window.location.origin));
  if (!response.ok) throw new Error(`The app's settings could not be loaded (HTTP ${response.status}).`);
  return response.json();
}

/**
 * The proxy's settings, so that one build of the app serves any platform: from the page when the proxy
 * wrote them there, which spares the first paint a round trip (performance.md W4); else fetched.
 */
export async function loadAppConfig(): Promise<AppConfig> {
  const config = (configInPage() ?? (await fetchConfig()) ?? {}) as Partial<AppConfig>;
  const missing = required.filter((key) => typeof config[key] !== 'string' || config[key] === '');
  if (missing.length > 0) throw new Error(`The app's settings lack ${missing.join(', ')}.`);
  // What a proxy does not say is not known: the app finds out by trying.
  const defaultPaths = Object.fromEntries(
    assetableTypes.map((type) => [type, `/v2/core/${entityPaths[type].plural}/:id`]),
  ) as AppConfig['entityPaths'];
  return {
    ...(config as AppConfig),
    entityPaths: { ...defaultPaths, ...config.entityPaths },
    capabilities: { ...unknownCapabilities, ...config.capabilities },
  };
}
