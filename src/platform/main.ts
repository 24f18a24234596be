import { buildPlatform } from './app';
import { runAdminCommand } from './cli/admin';
import { loadConfig } from './env';
import { stopOnSignals } from './shutdown';

/** `npm run platform` starts the server; `npm run platform -- clients|users add ...` runs an admin command. */
async function main() {
  const config = loadConfig();
  const args = process.argv.slice(2);
  if (args.length > 0) return runAdminCommand(config, args);

  const app = await buildPlatform(config);
  stopOnSignals(app, config.shutdownGraceMs);
  await app.listen({ host: config.host, port: config.port });
  app.log.info(`platform ready at ${config.publicUrl}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
