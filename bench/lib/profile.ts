/**
 * Reads a V8 .cpuprofile (from `node --cpu-prof`) and tells where the time went: self time by
 * function and by owner (the service's code, each npm package, Node's internals, GC).
 */
import { readFileSync } from 'node:fs'

interface CpuProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

interface CpuProfile {
  nodes: CpuProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

/**
 * `window` (microseconds of the monotonic clock, which V8's profile timestamps and
 * `process.hrtime` share) keeps only the samples taken while the load ran, leaving out start-up
 * (module loading, compilation) and shutdown.
 */
export function summariseProfile(file: string, root: string, title: string, window?: { fromUs: number; toUs: number }, top = 40): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parentOf = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
  const selfUs = new Map<number, number>()
  /** Time with the function anywhere on the stack, counted once per sample (recursion-safe). */
  const inclusive = new Map<string, number>()
  const usable = window && window.fromUs >= profile.startTime && window.toUs <= profile.endTime
  let at = profile.startTime
  let kept = 0
  // Each sample is charged the time since the previous one (V8's convention).
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    at += delta
    if (usable && (at < window.fromUs || at > window.toUs)) return
    kept++
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta)
    const seen = new Set<string>()
    for (let node: number | undefined = id; node !== undefined; node = parentOf.get(node)) {
      const frame = byId.get(node)?.callFrame
      if (frame && shortUrl(frame.url, root).startsWith('dist/')) seen.add(nameOf(frame, root))
    }
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + delta)
  })

  const functions = new Map<string, number>()
  const owners = new Map<string, number>()
  let total = 0
  let idle = 0
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame
    if (!frame) continue
    total += us
    if (frame.functionName === '(idle)') idle += us
    const name = nameOf(frame, root)
    functions.set(name, (functions.get(name) ?? 0) + us)
    const owner = ownerOf(frame.functionName, frame.url, root)
    owners.set(owner, (owners.get(owner) ?? 0) + us)
  }
  const busy = total - idle
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)} %`
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`
  const rows = (map: Map<string, number>, limit: number) =>
    [...map]
      .filter(([name]) => name !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, us]) => `${ms(us)}  ${pct(us)}  ${name}`)

  return [
    title,
    usable
      ? `Only the ${((window.toUs - window.fromUs) / 1e6).toFixed(1)} s of measured load are counted (start-up, warm-up and shutdown left out).`
      : 'The whole process lifetime is counted, start-up included (the load window did not match the profile clock).',
    `Profile: ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s, ${kept} of ${profile.samples.length} samples counted, ` +
      `busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms. Percentages are of busy (non-idle) time.`,
    '',
    'Self time by owner',
    '------------------',
    ...rows(owners, 30),
    '',
    `Top ${top} functions by self time`,
    '-----------------------------',
    ...rows(functions, top),
    '',
    "The service's own functions (dist/) by inclusive time: samples with the function anywhere on the stack.",
    'Async functions count only their synchronous stretches (what runs after an await is charged to the',
    'microtask that resumed it), so these understate whole request phases but show which code leads to the cost.',
    '-----------------------------------------------------------------------------------------------------',
    ...rows(inclusive, 25),
    '',
  ].join('\n')
}

function nameOf(frame: CpuProfileNode['callFrame'], root: string): string {
  const where = shortUrl(frame.url, root)
  return `${frame.functionName || '(anonymous)'}${where ? `  ${where}:${frame.lineNumber + 1}` : ''}`
}

function shortUrl(url: string, root: string): string {
  if (!url) return ''
  const plain = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url
  const nm = plain.lastIndexOf('/node_modules/')
  if (nm >= 0) return plain.slice(nm + 1)
  return plain.startsWith(`${root}/`) ? plain.slice(root.length + 1) : plain
}

/** Who owns a frame: a package, the service's own code, Node's internals, or V8 itself. */
function ownerOf(functionName: string, url: string, root: string): string {
  if (!url) return functionName.startsWith('(') ? `V8 ${functionName}` : 'V8 builtins / native'
  if (url.startsWith('node:')) return `Node.js core (${url.split('/')[1] ?? url})`
  const where = shortUrl(url, root)
  const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where)
  if (match) return `npm: ${match[1]}`
  if (where.startsWith('dist/')) return `service: ${where.split('/').slice(1, -1).join('/') || '(top)'}`
  return where
}
