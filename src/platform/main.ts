import { buildPlatform } from './app';
import { runAdminCommand } from './cli/admin';
import { loadConfig } from './env';

/** `npm run platform` starts the server; `npm run platform -- clients|users add ...` runs an admin command. */
async function main() {
  const config = loadConfig();
  const args = process.argv.slice(2);
  if (args.length > 0) return runAdminCommand(config, args);

  const app = await buildPlatform(config);
  const stop = async (signal: string) => {
    app.log.info(`${signal}: stopping`);
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await app.listen({ host: config.host, port: config.port });
  app.log.info(`platform ready at ${config.publicUrl}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
