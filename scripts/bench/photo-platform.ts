/**
 * The platform's side of the photo check (issue 31, point 5 and "bad input"), beside W5's browser side:
 *   S12  the check of a licence photo as the upload runs it (`measureStoredPhoto` on the stored file:
 *        decode reduced to `decodeSize`, grey, measures), in this process, at 3, 12, 48 and 100 MP:
 *        CPU ms per megapixel, median of rounds that take the sizes in turns; the wall time and the
 *        sizes it was decoded at and measured at beside (the 100 MP one must be a reduced copy, decoded
 *        at 1250 × 1250). Most of a check is the measures on the ≤ 1024 px image, the same at every
 *        size; the absolute ms is beside the per-MP figure for that reason.
 *   S13  the platform's CPU for an upload of a 12 MP licence photo as a `drivers_license` (checked) ÷
 *        for the same bytes as the investor's `avatar` (an image, probed as well, not checked); the two
 *        in turns, which goes first alternating; the absolute ms and what the check adds beside.
 * `BENCH_ONLY=photo npm run bench` runs these with W5. The photos are the labelled set's licence
 * (src/shared/assets/testing/document-photos.ts: fine print, sensor noise, a camera's JPEG at quality
 * 88); 48 and 100 MP are the 12 MP one enlarged (linear), as big as sharp and the catalog allow.
 */
import { type ChildProcess } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { meSchema } from '../../src/shared/api/me';
import { analysisSize } from '../../src/shared/assets/photo-quality';
import { documentPhoto } from '../../src/shared/assets/testing/document-photos';
import { decodeStoredPhoto, measureStoredPhoto } from '../../src/platform/media/photo-quality';
import {
  type BenchRow,
  cpuTicks,
  demoToken,
  median,
  roundRatios,
  startBenchPlatform,
  stopAll,
  tickMicros,
} from './common';

interface Sized {
  label: string;
  width: number;
  height: number;
  file: string;
  bytes: number;
}

/** The labelled set's clean licence at about 12 MP (4260 × 2812), a camera's JPEG. */
const twelveMegapixelLicence = async () =>
  (await documentPhoto({ kind: 'licence', defect: 'clean', longSide: 4260 })).jpeg;

/** The 12 MP licence enlarged (linear) to `width` × `height`: 48 MP, or 100 MP for W5h and S12. */
export async function enlargedLicence(width: number, height: number, twelve?: Buffer): Promise<Buffer> {
  return sharp(twelve ?? (await twelveMegapixelLicence()))
    .resize(width, height, { fit: 'fill', kernel: 'linear' })
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** The labelled set's clean licence at about 3 and 12 MP, and the 12 MP one enlarged to 48 and 100 MP. */
async function licencePhotos(work: string): Promise<Sized[]> {
  const write = (label: string, jpeg: Buffer, width: number, height: number): Sized => {
    const file = join(work, `licence-${label}.jpg`);
    writeFileSync(file, jpeg);
    return { label, width, height, file, bytes: jpeg.length };
  };
  const small = (await documentPhoto({ kind: 'licence', defect: 'clean', longSide: 2130 })).jpeg;
  const twelve = await twelveMegapixelLicence();
  const sizeOf = async (jpeg: Buffer) => {
    const { width, height } = await sharp(jpeg).metadata();
    return [width, height] as const;
  };
  return [
    write('3 MP', small, ...(await sizeOf(small))),
    write('12 MP', twelve, ...(await sizeOf(twelve))),
    write('48 MP', await enlargedLicence(8520, 5624, twelve), 8520, 5624),
    write('100 MP', await enlargedLicence(10_000, 10_000, twelve), 10_000, 10_000),
  ];
}

/** One check as the upload runs it, from the stored file: wall and CPU ms (all of libvips' threads). */
async function checkOnce(photo: Sized) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await measureStoredPhoto(createReadStream(photo.file), photo);
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

/** S12: each size's CPU ms per megapixel, the sizes in turns (a warm-up round first, not counted). */
async function benchCheckPerMegapixel(photos: Sized[], rounds: number): Promise<BenchRow[]> {
  const samples = photos.map(() => ({ ms: [] as number[], cpuMs: [] as number[] }));
  for (let round = -1; round < rounds; round++) {
    for (let k = 0; k < photos.length; k++) {
      // Which size goes first moves round by round, so none is always measured right after the largest.
      const i = (k + Math.max(0, round)) % photos.length;
      const took = await checkOnce(photos[i]!);
      if (round < 0) continue;
      samples[i]!.ms.push(took.ms);
      samples[i]!.cpuMs.push(took.cpuMs);
    }
  }
  const rows: BenchRow[] = [];
  for (const [i, photo] of photos.entries()) {
    const megapixels = (photo.width * photo.height) / 1e6;
    const perMp = samples[i]!.cpuMs.map((ms) => ms / megapixels);
    const grey = await decodeStoredPhoto(createReadStream(photo.file), photo);
    const analysed = analysisSize(grey.width, grey.height);
    rows.push({
      id: 'S12',
      measure: `platform photo check, ${photo.label} licence (${photo.width} × ${photo.height}, ${(photo.bytes / 1e6).toFixed(1)} MB), CPU ms per MP (${median(samples[i]!.cpuMs).toFixed(0)} ms)`,
      ...roundRatios(perMp),
      beside: `wall ${median(samples[i]!.ms).toFixed(0)} ms; decoded at ${grey.width} × ${grey.height}, measured at ${analysed.width} × ${analysed.height}`,
      target: 'none: what the check costs',
    });
  }
  return rows;
}

/** S13: the platform's CPU for the same bytes uploaded as a checked licence and as an unchecked avatar. */
async function benchUploadCpu(photo: Sized, rounds: number): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'bench-photo-'));
  const children: ChildProcess[] = [];
  try {
    const port = 4954 + Number(process.env.E2E_PORT_OFFSET ?? 0);
    const { platformUrl, pid, dataDir } = await startBenchPlatform(work, port, {}, children);
    const token = await demoToken(platformUrl, dataDir, 'investor@demo.test');
    const me = meSchema.parse(
      await (
        await fetch(`${platformUrl}/v2/core/me`, { headers: { authorization: `Bearer ${token}` } })
      ).json(),
    );
    const entityId = (type: string) => String(me.entities.find((e) => e.type === type)!.id);
    const bytes = new Uint8Array(readFileSync(photo.file));
    /** Platform CPU ms of `batch` uploads of the photo as this file type (ticks are 10 ms: a batch evens them). */
    const uploadCpuMs = async (fileType: string, assetableType: string, batch = 3) => {
      const ticks = cpuTicks(pid);
      for (let n = 0; n < batch; n++) {
        const form = new FormData();
        form.append('file_type', fileType);
        form.append('assetable_type', assetableType);
        form.append('assetable_id', entityId(assetableType));
        form.append('file', new Blob([bytes], { type: 'image/jpeg' }), 'licence.jpg');
        const response = await fetch(`${platformUrl}/v2/core/assets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: form,
        });
        const body = (await response.json()) as { asset?: { quality?: unknown } };
        if (
          response.status !== 201 ||
          (fileType === 'drivers_license') !== (body.asset?.quality !== undefined)
        )
          throw new Error(`${fileType} upload answered ${response.status}: ${JSON.stringify(body)}`);
      }
      return ((cpuTicks(pid) - ticks) * tickMicros) / 1000 / batch;
    };
    const checked: number[] = [];
    const unchecked: number[] = [];
    for (let i = -1; i < rounds; i++) {
      const licence = () => uploadCpuMs('drivers_license', 'Accreditation');
      const avatar = () => uploadCpuMs('avatar', 'User');
      let a: number;
      let b: number;
      if (i % 2 === 0) {
        a = await licence();
        b = await avatar();
      } else {
        b = await avatar();
        a = await licence();
      }
      if (i < 0) continue;
      checked.push(a);
      unchecked.push(b);
    }
    const added = median(checked.map((ms, i) => ms - unchecked[i]!));
    return [
      {
        id: 'S13',
        measure: `platform CPU of a ${photo.label} licence photo upload (${(photo.bytes / 1e6).toFixed(1)} MB) as drivers_license ÷ the same bytes as an avatar (no check)`,
        ...roundRatios(checked.map((ms, i) => ms / unchecked[i]!)),
        beside: `${median(checked).toFixed(0)} vs ${median(unchecked).toFixed(0)} ms; the check adds ${added.toFixed(0)} ms`,
        target: 'none: what the check adds',
      },
    ];
  } finally {
    await stopAll(children);
    rmSync(work, { recursive: true, force: true });
  }
}

export async function benchPhotoPlatform(rounds = 7): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'bench-photo-files-'));
  try {
    const photos = await licencePhotos(work);
    return [...(await benchCheckPerMegapixel(photos, rounds)), ...(await benchUploadCpu(photos[1]!, rounds))];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
