/** What the proxy serves at /app-config.json, so that one build of the app serves any platform. */
export interface AppConfig {
  platformBaseUrl: string;
  platformAuthUrl: string;
  clientId: string;
  scope: string;
  redirectUri: string;
  tokenEndpoint: string;
  revokeEndpoint: string;
}

const keys: (keyof AppConfig)[] = [
  'platformBaseUrl',
  'platformAuthUrl',
  'clientId',
  'scope',
  'redirectUri',
  'tokenEndpoint',
  'revokeEndpoint',
];

export async function loadAppConfig(): Promise<AppConfig> {
  const response = await fetch('/app-config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`The app's settings could not be loaded (HTTP ${response.status}).`);
  const config = (await response.json()) as Partial<AppConfig>;
  const missing = keys.filter((key) => typeof config[key] !== 'string' || config[key] === '');
  if (missing.length > 0) throw new Error(`The app's settings lack ${missing.join(', ')}.`);
  return config as AppConfig;
}
