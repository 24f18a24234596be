/**
 * Peer-3 of `npm run bench:peers`: crop + 800 px WebP of a 12-megapixel JPEG (4000 × 3000, made with
 * sharp at run time), ours (the client's whole flow, as S7: download_url?variant=cropped&width=800,
 * then the signed URL) against ipx (scripts/bench/peers/ipx-server.ts, on the same sharp version).
 *   first     a crop never asked for before, in each round: time and server CPU (counted in the
 *             kernel's 10 ms ticks: a render costs about ten of them, so its CPU is coarse)
 *   repeated  the same crop again: ours from the rendition cache, ipx renders again (it has no cache)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  cpuTicks,
  median,
  photoJpeg,
  roundRatios,
  startBenchPlatform,
  startNode,
  tickMicros,
  waitFor,
} from './common';
import type { PeerRow } from './peers';

interface Render {
  ms: number;
  cpuMicros: number;
  bytes: Buffer;
}

async function timed(pid: number, work: () => Promise<Buffer>): Promise<Render> {
  const ticks = cpuTicks(pid);
  const started = performance.now();
  const bytes = await work();
  return { ms: performance.now() - started, cpuMicros: (cpuTicks(pid) - ticks) * tickMicros, bytes };
}

async function fetchAll(url: string, init?: RequestInit) {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return Buffer.from(await response.arrayBuffer());
}

export async function benchRenditions(
  work: string,
  children: ChildProcess[],
  rounds: number,
): Promise<PeerRow[]> {
  const photo = await photoJpeg();
  const imageDir = join(work, 'images');
  mkdirSync(imageDir);
  writeFileSync(join(imageDir, 'photo.jpg'), photo);

  const ours = await startBenchPlatform(work, 4945, { DOWNLOAD_URL_TTL: '3600' }, children);
  const ipx = startNode(children, ['scripts/bench/peers/ipx-server.ts', '4946', imageDir]);
  const ipxUrl = (crop: { x: number; y: number; width: number; height: number }) =>
    `http://127.0.0.1:4946/extract_${crop.x}_${crop.y}_${crop.width}_${crop.height},w_800,f_webp/photo.jpg`;
  await waitFor('http://127.0.0.1:4946/');

  const auth = { authorization: `Bearer ${ours.token}` };
  const form = new FormData();
  for (const [k, v] of Object.entries({
    file_type: 'cover_image',
    assetable_type: 'Product',
    assetable_id: '1',
  }))
    form.append(k, v);
  form.append('file', new Blob([new Uint8Array(photo)]), 'photo.jpg');
  const { asset } = JSON.parse(
    (
      await fetchAll(`${ours.platformUrl}/v2/core/assets`, { method: 'POST', headers: auth, body: form })
    ).toString(),
  ) as { asset: { id: number } };
  const ourRendition = async () => {
    const { url } = JSON.parse(
      (
        await fetchAll(
          `${ours.platformUrl}/v2/core/assets/${asset.id}/download_url?variant=cropped&width=800`,
          {
            headers: auth,
          },
        )
      ).toString(),
    ) as { url: string };
    return fetchAll(url);
  };

  const firsts = { ours: [] as Render[], ipx: [] as Render[] };
  const repeats = { ours: [] as Render[], ipx: [] as Render[] };
  // Two warm-up rounds (JIT, libvips start-up) that do not count; single renders are noisy, so
  // twice the rounds of the throughput measures.
  for (let i = 0; i < 2 * rounds + 2; i++) {
    const crop = { x: 200 + 16 * i, y: 150 + 8 * i, width: 3200, height: 2400 };
    await fetchAll(`${ours.platformUrl}/v2/core/assets/${asset.id}`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ asset: { meta: { crop } } }),
    });
    const ipxFirst = await timed(ipx.pid!, () => fetchAll(ipxUrl(crop)));
    const oursFirst = await timed(ours.pid, ourRendition);
    const ipxRepeat = await timed(ipx.pid!, () => fetchAll(ipxUrl(crop)));
    const oursRepeat = await timed(ours.pid, ourRendition);
    if (i < 2) continue;
    for (const render of [ipxFirst, oursFirst, ipxRepeat, oursRepeat])
      if ((await sharp(render.bytes).metadata()).width !== 800)
        throw new Error('a rendition is not 800 px wide');
    firsts.ipx.push(ipxFirst);
    firsts.ours.push(oursFirst);
    repeats.ipx.push(ipxRepeat);
    repeats.ours.push(oursRepeat);
  }

  const ms = (renders: Render[]) => median(renders.map((r) => r.ms)).toFixed(0);
  const cpu = (renders: Render[]) => (median(renders.map((r) => r.cpuMicros)) / 1000).toFixed(0);
  const last = firsts.ours.length - 1;
  const sameBytes = firsts.ours[last]!.bytes.equals(firsts.ipx[last]!.bytes);
  const note = `(WebP ${firsts.ours[last]!.bytes.length} vs ${firsts.ipx[last]!.bytes.length} B${sameBytes ? ', byte-identical' : ''})`;
  return [
    {
      id: 'Peer-3',
      measure: `first crop + 800 px WebP, time (ms): ipx ÷ ours ${note}`,
      ours: ms(firsts.ours),
      peer: `ipx ${ms(firsts.ipx)}`,
      ...roundRatios(firsts.ours.map((o, i) => firsts.ipx[i]!.ms / o.ms)),
      target: '≥ 1',
    },
    {
      id: 'Peer-3',
      measure: 'first crop + 800 px WebP, server CPU (ms): ipx ÷ ours',
      ours: cpu(firsts.ours),
      peer: `ipx ${cpu(firsts.ipx)}`,
      ...roundRatios(firsts.ours.map((o, i) => firsts.ipx[i]!.cpuMicros / Math.max(tickMicros, o.cpuMicros))),
      target: '≥ 1',
    },
    {
      id: 'Peer-3',
      measure: 'repeated crop + 800 px WebP, time (ms): ipx ÷ ours',
      ours: ms(repeats.ours),
      peer: `ipx ${ms(repeats.ipx)}`,
      ...roundRatios(repeats.ours.map((o, i) => repeats.ipx[i]!.ms / o.ms)),
      target: '≥ 1',
    },
  ];
}
