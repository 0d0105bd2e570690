/**
 * Photos: what an upload costs and how fast its files are served, on the built service
 * (embedded: SQLite, files under DATA_DIR/media). Three measures, each with a target:
 *
 * - upload: a 12-megapixel JPEG (4000 × 3000, gradients and noise, like a camera's) posted to
 *   `POST /v1/pets/{id}/photos`, one at a time, timed from sending to the parsed 201 (every
 *   variant stored and the row committed); p50 and max over the runs, target ≤ 1.5 s;
 * - serving: `GET /media/photos/…` of its 300-pixel WebP, closed loop (the bench's load
 *   generator), against a bare node:http server sending the same bytes from memory with the same
 *   headers, interleaved rounds; median ratio of requests/s, target ≥ 0.6;
 * - list under uploads: `GET /v1/pets?limit=20` at a fixed moderate rate (the open-loop
 *   generator of lib/rate.ts), idle and while 4 uploads are in flight at once, interleaved; the
 *   p99 under uploads ÷ the idle p99, target ≤ 2.
 *
 * Run by `npm run bench` after the throughput scenarios (BENCH_PHOTOS=0 skips it, `only` runs it
 * alone); see bench/README.md, "Photos".
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { performance } from 'node:perf_hooks'
import sharp from 'sharp'
import { defineConfig } from '../src/config.js'
import type { Expected, LoadOptions, LoadResult, RequestShape } from './lib/load.js'
import { freePort, type Managed, sleep, startNode, waitForQuiet, waitUntil } from './lib/proc.js'
import { runFixedRate } from './lib/rate.js'
import { median } from './lib/report.js'
import { cleanEnv, cli, type Paths, startService, stopTarget } from './lib/targets.js'

export interface PhotosSettings {
  /** Uploads timed one at a time, after `uploadWarmup` untimed ones. */
  uploads: number
  uploadWarmup: number
  /** Interleaved rounds of the serving and list measures. */
  rounds: number
  /** Length of each serving run (closed loop), and of each fixed-rate list run, in seconds. */
  serveSeconds: number
  listSeconds: number
  /** The fixed rate of GET list, and its connections. */
  listRate: number
  listConnections: number
  /** Uploads in flight at once during the busy list runs. */
  concurrentUploads: number
}

export function photosSettings(env: NodeJS.ProcessEnv, quick: boolean, seconds: number, rounds: number): PhotosSettings {
  const number = (name: string, fallback: number) => (env[name] ? Math.max(1, Math.round(Number(env[name]))) : fallback)
  return {
    uploads: number('BENCH_PHOTOS_UPLOADS', quick ? 3 : 10),
    uploadWarmup: quick ? 1 : 2,
    rounds,
    serveSeconds: seconds,
    listSeconds: number('BENCH_PHOTOS_LIST_SECONDS', quick ? 3 : 10),
    listRate: 200,
    listConnections: 4,
    concurrentUploads: 4,
  }
}

export const PHOTO_TARGETS = { uploadSeconds: 1.5, serveRatio: 0.6, listP99Ratio: 2 } as const

export interface PhotosResult {
  image: { width: number; height: number; bytes: number; variants: number }
  upload: { seconds: number[]; p50: number; max: number }
  serve: {
    path: string
    bytes: number
    headers: Record<string, string>
    rounds: { round: number; service: LoadResult; baseline: LoadResult; ratio: number }[]
    ratio: number
  }
  list: {
    rounds: { round: number; idle: LoadResult; busy: LoadResult; uploadsDone: number; ratio: number }[]
    idleP99: number
    busyP99: number
    ratio: number
  }
  processingConcurrency: string
}

type ClosedLoop = (baseUrl: string, shape: RequestShape, expected: Expected, pid: number, options: LoadOptions) => Promise<LoadResult>

/**
 * A camera-like 12 MP JPEG: smooth gradients and broad shapes (what compresses) under sensor-like
 * noise (what does not), from a fixed seed so every run uploads the same bytes. About 3 MB.
 */
export async function cameraPhoto(width = 4000, height = 3000): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3)
  let seed = 0x2545f491
  const noise = () => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return ((seed >>> 0) % 25) - 12
  }
  for (let y = 0, i = 0; y < height; y++) {
    const v = y / height
    for (let x = 0; x < width; x++, i += 3) {
      const u = x / width
      const wave = Math.sin(u * 9 + v * 4) * 30 + Math.sin(v * 23) * 12
      const blob = (u - 0.6) ** 2 + (v - 0.45) ** 2 < 0.04 ? 60 : 0
      raw[i] = clamp(40 + 150 * u + wave + blob + noise())
      raw[i + 1] = clamp(70 + 110 * v - wave / 2 + blob / 2 + noise())
      raw[i + 2] = clamp(120 + 70 * Math.cos(u * 5) - blob + noise())
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 88 }).toBuffer()
}

const clamp = (n: number) => (n < 0 ? 0 : n > 255 ? 255 : Math.round(n))

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN

interface Photo {
  id: string
  variants: { webp: { width: number; url: string }[]; jpeg: { width: number; url: string }[] }
}

export async function runPhotosBench(options: {
  paths: Paths
  tmp: string
  logDir: string
  settings: PhotosSettings
  closedLoop: ClosedLoop
  quietWaitSeconds: number
  log: (line: string) => void
}): Promise<PhotosResult> {
  const { paths, tmp, logDir, settings, closedLoop, log } = options
  const instance = await startService({ name: 'service-photos', paths, logDir, dataDir: path.join(tmp, 'photos-data') })
  let baseline: Managed | undefined
  try {
    const base = instance.baseUrl
    await cli(paths, instance.env, ['projects', 'create', 'bench-photos', '--plan', 'enterprise', '--per-minute', '1000000000', '--per-day', '1000000000'])
    const { key } = await cli<{ key: string }>(paths, instance.env, ['keys', 'create', '--project', 'bench-photos', '--name', 'bench'])
    const auth = { authorization: `Bearer ${key}` }

    // Animals to hold the photos (20 each at most), and a page of them to list.
    const pets: number[] = []
    for (let i = 0; i < 60; i++) {
      const response = await fetch(`${base}/v1/pets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Photo ${i}`, categoryId: 1 + (i % 5) }) })
      if (response.status !== 201) throw new Error(`POST /v1/pets answered ${response.status}: ${await response.text()}`)
      pets.push(((await response.json()) as { id: number }).id)
    }
    let uploadsSent = 0
    const upload = async (bytes: Buffer): Promise<{ seconds: number; photo: Photo }> => {
      const petId = pets[Math.floor(uploadsSent++ / 20) % pets.length]!
      const started = performance.now()
      const response = await fetch(`${base}/v1/pets/${petId}/photos`, { method: 'POST', headers: { ...auth, 'content-type': 'image/jpeg' }, body: bytes })
      const text = await response.text()
      const seconds = (performance.now() - started) / 1000
      if (response.status !== 201) throw new Error(`a photo upload answered ${response.status}: ${text.slice(0, 500)}`)
      return { seconds, photo: JSON.parse(text) as Photo }
    }

    /**
     * `concurrency` uploads kept in flight by bench/uploader.mjs, a process of its own (the load
     * generator timing GET list runs in this one): resolves once all are sent.
     */
    const startUploads = async (concurrency: number) => {
      const configPath = path.join(tmp, 'uploader.json')
      writeFileSync(configPath, JSON.stringify({ baseUrl: base, key, pets, first: uploadsSent, file: photoFile, concurrency }))
      const child = spawn(process.execPath, [paths.uploaderScript, configPath], { stdio: ['pipe', 'pipe', 'inherit'] })
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
      if ((await lines.next()).value !== 'started') throw new Error('the uploader stopped before its uploads started')
      return {
        stop: async () => {
          child.stdin.end()
          const count = Number((await lines.next()).value)
          const [code] = await once(child, 'exit')
          if (code !== 0 || !Number.isInteger(count)) throw new Error(`the uploader failed (exit ${code})`)
          uploadsSent += count
          return count
        },
      }
    }

    const generated = performance.now()
    const bytes = await cameraPhoto()
    const photoFile = path.join(tmp, 'upload.jpg')
    writeFileSync(photoFile, bytes)
    const image = { width: 4000, height: 3000, bytes: bytes.length, variants: 0 }
    log(`  photos: a 4000 × 3000 JPEG of ${(bytes.length / 1e6).toFixed(1)} MB generated in ${((performance.now() - generated) / 1000).toFixed(1)} s`)

    // -- upload, one at a time
    let photo: Photo | undefined
    for (let i = 0; i < settings.uploadWarmup; i++) photo = (await upload(bytes)).photo
    const seconds: number[] = []
    for (let i = 0; i < settings.uploads; i++) {
      await quiet(options.quietWaitSeconds)
      const result = await upload(bytes)
      seconds.push(result.seconds)
      photo = result.photo
      log(`  photos: upload ${i + 1}/${settings.uploads}: ${result.seconds.toFixed(2)} s`)
    }
    if (!photo) throw new Error('no photo uploaded')
    image.variants = photo.variants.webp.length + photo.variants.jpeg.length
    const sortedSeconds = [...seconds].sort((a, b) => a - b)

    // -- serving the 300-pixel WebP, service and baseline
    const variant = photo.variants.webp.find((v) => v.width === 300)
    if (!variant) throw new Error(`the photo has no 300-pixel WebP: ${JSON.stringify(photo.variants.webp)}`)
    const mediaPath = new URL(variant.url).pathname
    const served = await fetch(base + mediaPath)
    const body = Buffer.from(await served.arrayBuffer())
    if (served.status !== 200) throw new Error(`GET ${mediaPath} answered ${served.status}`)
    // Every header the service sent, but those that describe this one exchange.
    const headers = Object.fromEntries([...served.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)))
    const file = path.join(tmp, 'photo-300.webp')
    writeFileSync(file, body)
    const config = path.join(logDir, 'media-baseline.json')
    const port = await freePort()
    writeFileSync(config, JSON.stringify({ port, file, headers }))
    baseline = startNode('media-baseline', [path.join(paths.root, 'bench/media-baseline-server.mjs'), config], { env: cleanEnv({}), cwd: paths.root, logDir })
    const baselineUrl = `http://127.0.0.1:${port}`
    await waitUntil(baseline, 'an HTTP answer', async () => (await fetch(baselineUrl)).status === 200)
    const again = await fetch(baselineUrl + mediaPath)
    if (!Buffer.from(await again.arrayBuffer()).equals(body)) throw new Error('the media baseline answers other bytes than the service')
    const shape: RequestShape = { method: 'GET', path: mediaPath, headers: {} }
    const serveTargets = [
      { id: 'service' as const, url: base, pid: instance.process.pid },
      { id: 'baseline' as const, url: baselineUrl, pid: baseline.pid },
    ]
    for (const target of serveTargets) await closedLoop(target.url, shape, 200, target.pid, { seconds: 1, connections: 50 })
    const serveRounds: PhotosResult['serve']['rounds'] = []
    for (let round = 1; round <= settings.rounds; round++) {
      const results: Partial<Record<'service' | 'baseline', LoadResult>> = {}
      for (const target of round % 2 ? serveTargets : [...serveTargets].reverse()) {
        await quiet(options.quietWaitSeconds)
        const result = await closedLoop(target.url, shape, 200, target.pid, { seconds: settings.serveSeconds, connections: 50 })
        if (result.unexpected + result.errors + result.timeouts > 0) throw new Error(`serving the photo on ${target.id}: ${JSON.stringify(result.statuses)}, ${result.errors} errors, ${result.timeouts} timeouts`)
        results[target.id] = result
        log(`  photos: serve round ${round} ${target.id.padEnd(8)} ${Math.round(result.rps)} req/s, p99 ${result.latencyMs.p99.toFixed(2)} ms, ${Math.round(result.serverCpuUsPerResponse)} µs CPU/req, other ${result.otherCpuCores.toFixed(2)} cores`)
      }
      serveRounds.push({ round, service: results.service!, baseline: results.baseline!, ratio: results.service!.rps / results.baseline!.rps })
    }

    // -- GET list at a fixed rate, idle and while uploads are processed
    const list: RequestShape = { method: 'GET', path: '/v1/pets?limit=20', headers: auth }
    const fixed = { seconds: settings.listSeconds, connections: settings.listConnections, rate: settings.listRate }
    await runFixedRate(base, list, 200, instance.process.pid, { ...fixed, seconds: 1 })
    const listRounds: PhotosResult['list']['rounds'] = []
    for (let round = 1; round <= settings.rounds; round++) {
      const runs: Partial<Record<'idle' | 'busy', LoadResult>> = {}
      let uploadsDone = 0
      for (const phase of round % 2 ? (['idle', 'busy'] as const) : (['busy', 'idle'] as const)) {
        await quiet(options.quietWaitSeconds)
        if (phase === 'idle') {
          runs.idle = await runFixedRate(base, list, 200, instance.process.pid, fixed)
          continue
        }
        // Each stream keeps one upload in flight until the run ends; the run starts once all are sent.
        const uploads = await startUploads(settings.concurrentUploads)
        runs.busy = await runFixedRate(base, list, 200, instance.process.pid, fixed)
        uploadsDone += await uploads.stop()
      }
      for (const [phase, result] of Object.entries(runs)) {
        if (result.unexpected + result.errors + result.timeouts > 0) throw new Error(`GET list (${phase}): ${JSON.stringify(result.statuses)}, ${result.errors} errors, ${result.timeouts} timeouts`)
      }
      listRounds.push({ round, idle: runs.idle!, busy: runs.busy!, uploadsDone, ratio: runs.busy!.latencyMs.p99 / runs.idle!.latencyMs.p99 })
      log(
        `  photos: list round ${round}: p99 idle ${runs.idle!.latencyMs.p99.toFixed(2)} ms, under ${settings.concurrentUploads} uploads ${runs.busy!.latencyMs.p99.toFixed(2)} ms (${uploadsDone} uploads finished, other ${runs.busy!.otherCpuCores.toFixed(2)} cores)`,
      )
    }

    return {
      image,
      upload: { seconds, p50: percentile(sortedSeconds, 50), max: sortedSeconds.at(-1)! },
      serve: { path: mediaPath, bytes: body.length, headers, rounds: serveRounds, ratio: median(serveRounds.map((r) => r.ratio)) },
      list: {
        rounds: listRounds,
        idleP99: median(listRounds.map((r) => r.idle.latencyMs.p99)),
        busyP99: median(listRounds.map((r) => r.busy.latencyMs.p99)),
        ratio: median(listRounds.map((r) => r.ratio)),
      },
      processingConcurrency: `PHOTO_PROCESSING_CONCURRENCY unset (the default, ${defineConfig().photoProcessingConcurrency} per instance)`,
    }
  } finally {
    if (baseline) await stopTarget({ process: baseline })
    await stopTarget(instance)
  }
}

/** Waits (at most 5 s) for the rest of the machine to quieten down, when the harness allows it. */
async function quiet(budgetSeconds: number): Promise<void> {
  if (budgetSeconds > 0) await waitForQuiet(Math.min(5_000, budgetSeconds * 1000))
  else await sleep(100)
}

const verdictOf = (ok: boolean) => (ok ? 'PASS' : 'FAIL')

export function photosMarkdown(result: PhotosResult, settings: PhotosSettings, loadgen: string, notes: string[]): string {
  const ms = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`
  const { upload, serve, list } = result
  const lines = [
    '## Targets',
    '',
    '| Measure | Figure | Target | |',
    '|---|---:|---:|---|',
    `| Upload of a 12 MP JPEG, end to end, p50 | ${ms(upload.p50)} | ≤ ${ms(PHOTO_TARGETS.uploadSeconds)} | ${verdictOf(upload.p50 <= PHOTO_TARGETS.uploadSeconds)} |`,
    `| the same, max of ${upload.seconds.length} | ${ms(upload.max)} | ≤ ${ms(PHOTO_TARGETS.uploadSeconds)} | ${verdictOf(upload.max <= PHOTO_TARGETS.uploadSeconds)} |`,
    `| Serving the 300 px WebP: service ÷ baseline req/s (median of ${serve.rounds.length} rounds) | ${serve.ratio.toFixed(2)} | ≥ ${PHOTO_TARGETS.serveRatio} | ${verdictOf(serve.ratio >= PHOTO_TARGETS.serveRatio)} |`,
    `| GET list p99 under ${settings.concurrentUploads} uploads ÷ idle p99 (median of ${list.rounds.length} rounds) | ${list.ratio.toFixed(2)} | ≤ ${PHOTO_TARGETS.listP99Ratio} | ${verdictOf(list.ratio <= PHOTO_TARGETS.listP99Ratio)} |`,
    '',
    '## Upload',
    '',
    `A ${result.image.width} × ${result.image.height} JPEG of ${(result.image.bytes / 1e6).toFixed(2)} MB (gradients and noise, generated with sharp from a fixed seed) posted as \`image/jpeg\` to \`POST /v1/pets/{id}/photos\`, one at a time after ${settings.uploadWarmup} untimed, each timed from sending to its parsed 201: ${result.image.variants} files made and stored, the row committed. ${result.processingConcurrency}.`,
    '',
    `Runs (s): ${upload.seconds.map((s) => s.toFixed(2)).join(', ')}.`,
    '',
    '## Serving a photo',
    '',
    `\`GET ${serve.path.replace(/\/[^/]+\/[^/]+$/, '/…')}\` (the 300 px WebP, ${serve.bytes} bytes), ${loadgen}, 50 connections, ${settings.serveSeconds} s runs, against a bare node:http server sending the same bytes from memory with the same headers (${Object.keys(serve.headers).join(', ')}). The service keeps a served file's bytes in memory (up to MEDIA_CACHE_MAX_BYTES) and its row while the store is unchanged; a file whose row and bytes are both in memory is answered before routing.`,
    '',
    '| Round | service req/s | baseline req/s | ratio | service CPU µs/req | baseline CPU µs/req | other CPU (cores) |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...serve.rounds.map(
      (r) =>
        `| ${r.round} | ${Math.round(r.service.rps)} | ${Math.round(r.baseline.rps)} | ${r.ratio.toFixed(2)} | ${Math.round(r.service.serverCpuUsPerResponse)} | ${Math.round(r.baseline.serverCpuUsPerResponse)} | ${r.service.otherCpuCores.toFixed(2)} / ${r.baseline.otherCpuCores.toFixed(2)} |`,
    ),
    '',
    '## GET list while photos are processed',
    '',
    `\`GET /v1/pets?limit=20\` at a fixed ${settings.listRate} req/s on ${settings.listConnections} connections for ${settings.listSeconds} s (open loop, lib/rate.ts), idle and while ${settings.concurrentUploads} uploads of the same photo are in flight at once (each stream sends the next as soon as one is answered), interleaved.`,
    '',
    '| Round | idle p50 / p99 (ms) | under uploads p50 / p99 (ms) | p99 ratio | uploads finished during the run | other CPU under uploads (cores) |',
    '|---:|---:|---:|---:|---:|---:|',
    ...list.rounds.map(
      (r) =>
        `| ${r.round} | ${r.idle.latencyMs.p50.toFixed(2)} / ${r.idle.latencyMs.p99.toFixed(2)} | ${r.busy.latencyMs.p50.toFixed(2)} / ${r.busy.latencyMs.p99.toFixed(2)} | ${r.ratio.toFixed(2)} | ${r.uploadsDone} | ${r.busy.otherCpuCores.toFixed(2)} |`,
    ),
    '',
    '## Notes',
    '',
    ...notes.map((note) => `- ${note}`),
    '',
  ]
  return lines.join('\n')
}
