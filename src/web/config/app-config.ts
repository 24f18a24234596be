import { unknownCapabilities, type AppConfig } from '../../shared/api/app-config';
import { entityPaths } from '../../shared/api/entities';
import { assetableTypes } from '../../shared/api/assetable';

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

/** The proxy's `/app-config.json`, so that one build of the app serves any platform. */
export async function loadAppConfig(): Promise<AppConfig> {
  const response = await fetch('/app-config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`The app's settings could not be loaded (HTTP ${response.status}).`);
  const config = (await response.json()) as Partial<AppConfig>;
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
