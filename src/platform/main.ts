import { loadConfig } from './config/env';

/**
 * `npm run platform` starts the server; `npm run platform -- clients|users add ...` runs an admin command.
 * Each loads only its own part: an admin command does not load the server, its plugins and its media
 * libraries, which is most of a start (the end-to-end tests run `users add` for every person they make).
 */
async function main() {
  const config = loadConfig();
  const args = process.argv.slice(2);
  if (args.length > 0) {
    const { runAdminCommand } = await import('./cli/admin');
    return runAdminCommand(config, args);
  }

  const [{ buildPlatform }, { stopOnSignals }] = await Promise.all([
    import('./composition/app'),
    import('./shutdown'),
  ]);
  const app = await buildPlatform(config);
  stopOnSignals(app, config.shutdownGraceMs);
  await app.listen({ host: config.host, port: config.port });
  app.log.info(`platform ready at ${config.publicUrl}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
