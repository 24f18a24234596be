import { buildProxy } from './app';
import { loadConfig } from './env';

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `npm run web`: the proxy serving the built web app, pointed at the platform by configuration. */
async function main() {
  const config = loadConfig();
  const app = await buildProxy(config);

  const publicUrl = new URL(config.publicOrigin);
  if (publicUrl.protocol === 'http:' && !loopbackHosts.has(publicUrl.hostname)) {
    // Browsers keep Secure cookies from plain http only on loopback addresses: elsewhere sign-in would
    // work but every reload would lose the session.
    app.log.warn('WEB_PUBLIC_URL is plain http on a non-loopback host: the refresh cookie will be dropped');
  }

  const stop = async (signal: string) => {
    app.log.info(`${signal}: stopping`);
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await app.listen({ host: config.host, port: config.port });
  app.log.info(`web app ready at ${config.publicOrigin} (platform ${config.platformBaseUrl})`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
