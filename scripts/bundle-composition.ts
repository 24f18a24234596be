// `npx tsx scripts/bundle-composition.ts`: prints which packages make up the built app's JavaScript, from the source maps of dist/assets.
import { readFileSync, readdirSync } from 'node:fs';
const bySource: Record<string, number> = {};
for (const file of readdirSync('dist/assets').filter((f) => f.endsWith('.js.map'))) {
  const map = JSON.parse(readFileSync(`dist/assets/${file}`, 'utf8')) as {
    sources: string[];
    sourcesContent?: string[];
  };
  map.sources.forEach((source, i) => {
    const name = source.match(/node_modules\/((@[^/]+\/)?[^/]+)/)?.[1] ?? '(app)';
    const key = `${file.split('-')[0]} ${name}`;
    bySource[key] = (bySource[key] ?? 0) + (map.sourcesContent?.[i]?.length ?? 0);
  });
}
for (const [key, size] of Object.entries(bySource)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 20)) {
  console.log(`${(size / 1024).toFixed(0).padStart(6)} KB source  ${key}`);
}
