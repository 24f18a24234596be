import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The newest modification time under the app's sources, to tell whether dist/ is out of date. */
function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

/** Builds the web app into dist/ when its sources are newer than the last build; exits when it fails. */
export function buildWebAppIfNeeded() {
  const index = resolve('dist/index.html');
  const sources = ['src/web', 'src/shared', 'public', 'index.html', 'vite.config.ts'].filter(existsSync);
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources.map(newestSource))) return;
  console.log('Building the web app…');
  const build = spawnSync(process.execPath, [resolve('node_modules/vite/bin/vite.js'), 'build'], {
    stdio: 'inherit',
  });
  if (build.status !== 0) {
    console.error('The web app did not build; see the messages above.');
    process.exit(build.status ?? 1);
  }
}
