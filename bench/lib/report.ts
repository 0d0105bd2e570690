/**
 * Turns the runs into figures (medians over rounds, ratios within rounds), checks them against
 * the targets, and writes Markdown, JSON and an SVG chart.
 */
import { type Expected, expectedList, type LoadResult } from './load.js'

export type TargetId = 'service' | 'baseline' | 'pg' | 'prism' | 'nocache'
export type ScenarioId = 'list' | 'listNoCache' | 'listFull' | 'site' | 'get' | 'mixed' | 'post' | 'unauthorized' | 'limited'

export interface RunRecord {
  phase: 'warmup' | 'round' | 'latency'
  round: number
  scenario: ScenarioId
  target: TargetId
  result: LoadResult
}

export interface ScenarioInfo {
  id: ScenarioId
  title: string
  /** The status every response must have; a mixed scenario allows several (200 and 201). */
  expectedStatus: Expected
  /** Minimum service/baseline ratio of requests/s. */
  ratioTarget: number
  /**
   * A row with no runs of its own: its "service" figures are the runs of `target` in
   * `scenario`, compared with that scenario's baseline runs of the same round (GET list, cache
   * off: the RESPONSE_CACHE=off instance is one more target of the GET list rounds).
   */
  measuredAs?: { scenario: ScenarioId; target: TargetId }
}

export const expectedText = (expected: Expected) => expectedList(expected).join(' + ')

export interface TargetSummary {
  rounds: number
  medianRps: number
  minRps: number
  maxRps: number
  p50Ms: number
  p99Ms: number
  statuses: Record<string, number>
  unexpected: number
  errors: number
  cpuUsPerResponse: number
  bytesPerResponse: number
  loadgenCpuShare: number
}

export interface RatioSummary {
  median: number
  min: number
  max: number
  perRound: number[]
}

export interface ScenarioSummary {
  scenario: ScenarioInfo
  targets: Partial<Record<TargetId, TargetSummary>>
  /** service / baseline requests/s, per round. */
  vsBaseline: RatioSummary | undefined
  /** baseline / service server CPU per response, per round: the same question, asked of CPU time. */
  cpuVsBaseline: RatioSummary | undefined
  /** pg / baseline. */
  pgVsBaseline: RatioSummary | undefined
  /** pg / service (embedded). */
  pgVsService: RatioSummary | undefined
  /** service / Prism. */
  serviceVsPrism: RatioSummary | undefined
  latency: Partial<Record<TargetId, LatencySummary>>
}

/** The fixed-rate runs of one scenario and target: medians over runs (GET list runs once per round, the rest once). */
export interface LatencySummary {
  runs: number
  rps: number
  latencyMs: LoadResult['latencyMs']
  p99Min: number
  p99Max: number
  scheduledP99Ms: number
  serverCpuUsPerResponse: number
  otherCpuCores: number
  statuses: Record<string, number>
}

export interface Check {
  name: string
  measured: string
  target: string
  verdict: 'PASS' | 'FAIL' | 'n/a'
}

export interface Report {
  title: string
  startedAt: string
  finishedAt: string
  environment: Record<string, string>
  settings: Record<string, string | number | boolean>
  labels: Partial<Record<TargetId, string>>
  scenarios: ScenarioSummary[]
  memory: Partial<Record<TargetId, { peakKiB: number; rssKiB: number }>>
  checks: Check[]
  notes: string[]
  runs: RunRecord[]
}

/** A measured run during which the rest of the machine used more than this many cores is flagged. */
export const NOISY_OTHER_CPU = 0.35

export function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2
}

export function summarise(scenarios: ScenarioInfo[], runs: RunRecord[]): ScenarioSummary[] {
  return scenarios.map((scenario) => {
    const source = scenario.measuredAs?.scenario ?? scenario.id
    const rounds = runs.filter((r) => r.phase === 'round' && r.scenario === source)
    // For a row measured as another target of another scenario, that target plays "service".
    const actual = (target: TargetId): TargetId => (target === 'service' && scenario.measuredAs ? scenario.measuredAs.target : target)
    const of = (target: TargetId) => rounds.filter((r) => r.target === actual(target))
    const targets: Partial<Record<TargetId, TargetSummary>> = {}
    for (const target of scenario.measuredAs ? (['service', 'baseline'] as const) : (['service', 'baseline', 'pg', 'prism'] as const)) {
      const mine = of(target)
      if (mine.length) targets[target] = summariseTarget(mine.map((r) => r.result))
    }
    /** a/b of requests/s within each round: the figure that survives a noisy machine. */
    const ratio = (a: TargetId, b: TargetId, figure: (r: LoadResult) => number = (r) => r.rps): RatioSummary | undefined => {
      const perRound: number[] = []
      for (const run of of(a)) {
        const other = of(b).find((r) => r.round === run.round)
        if (other && figure(other.result) > 0) perRound.push(figure(run.result) / figure(other.result))
      }
      return perRound.length ? { median: median(perRound), min: Math.min(...perRound), max: Math.max(...perRound), perRound } : undefined
    }
    const latency: Partial<Record<TargetId, LatencySummary>> = {}
    for (const target of ['service', 'baseline', 'pg'] as const) {
      const mine = runs.filter((r) => r.phase === 'latency' && r.scenario === scenario.id && r.target === target).map((r) => r.result)
      if (mine.length) latency[target] = summariseLatency(mine)
    }
    return {
      scenario,
      targets,
      vsBaseline: ratio('service', 'baseline'),
      // Requests per CPU-second: 1 / (CPU µs per response).
      cpuVsBaseline: ratio('service', 'baseline', (r) => 1 / r.serverCpuUsPerResponse),
      pgVsBaseline: scenario.measuredAs ? undefined : ratio('pg', 'baseline'),
      pgVsService: scenario.measuredAs ? undefined : ratio('pg', 'service'),
      serviceVsPrism: scenario.measuredAs ? undefined : ratio('service', 'prism'),
      latency,
    }
  })
}

function summariseLatency(results: LoadResult[]): LatencySummary {
  const m = (pick: (r: LoadResult) => number) => median(results.map(pick))
  const p99s = results.map((r) => r.latencyMs.p99)
  const statuses: Record<string, number> = {}
  for (const r of results) for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n
  return {
    runs: results.length,
    rps: m((r) => r.rps),
    latencyMs: {
      p50: m((r) => r.latencyMs.p50),
      p90: m((r) => r.latencyMs.p90),
      p99: m((r) => r.latencyMs.p99),
      p999: m((r) => r.latencyMs.p999),
      max: Math.max(...results.map((r) => r.latencyMs.max)),
    },
    p99Min: Math.min(...p99s),
    p99Max: Math.max(...p99s),
    scheduledP99Ms: m((r) => r.scheduledP99Ms ?? NaN),
    serverCpuUsPerResponse: m((r) => r.serverCpuUsPerResponse),
    otherCpuCores: m((r) => r.otherCpuCores),
    statuses,
  }
}

function summariseTarget(results: LoadResult[]): TargetSummary {
  const statuses: Record<string, number> = {}
  for (const r of results) for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n
  const rps = results.map((r) => r.rps)
  return {
    rounds: results.length,
    medianRps: median(rps),
    minRps: Math.min(...rps),
    maxRps: Math.max(...rps),
    p50Ms: median(results.map((r) => r.latencyMs.p50)),
    p99Ms: median(results.map((r) => r.latencyMs.p99)),
    statuses,
    unexpected: results.reduce((sum, r) => sum + r.unexpected, 0),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    cpuUsPerResponse: median(results.map((r) => r.serverCpuUsPerResponse)),
    bytesPerResponse: median(results.map((r) => r.bytesPerResponse)),
    loadgenCpuShare: median(results.map((r) => r.loadgenCpuShare)),
  }
}

// ---- formatting --------------------------------------------------------------------------------

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–')
const fixed = (n: number | undefined, digits = 2) => (n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : '–')
const ratioText = (r: RatioSummary | undefined, digits = 2) => (r ? `**${fixed(r.median, digits)}** (${fixed(r.min, digits)}–${fixed(r.max, digits)})` : '–')
const mib = (kib: number | undefined) => (kib !== undefined && Number.isFinite(kib) ? `${(kib / 1024).toFixed(1)} MiB` : '–')
const statusText = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .sort((a, b) => b[1] - a[1])
    .map(([status, n]) => `${status}: ${int(n)}`)
    .join(', ')

export function verdict(ok: boolean | undefined): Check['verdict'] {
  return ok === undefined ? 'n/a' : ok ? 'PASS' : 'FAIL'
}

export function toMarkdown(report: Report): string {
  const { labels } = report
  const has = (t: TargetId) => report.scenarios.some((s) => s.targets[t])
  const out: string[] = []
  out.push(`# ${report.title}`, '')
  out.push(`Run ${report.startedAt} → ${report.finishedAt}.`, '')
  for (const [k, v] of Object.entries(report.environment)) out.push(`- ${k}: ${v}`)
  out.push('')
  out.push('Settings: ' + Object.entries(report.settings).map(([k, v]) => `${k}=${v}`).join(', '), '')

  out.push('## Targets', '', 'Informational: missing a target does not fail the run.', '')
  out.push('| Check | Measured | Target | Verdict |', '|---|---|---|---|')
  for (const c of report.checks) out.push(`| ${c.name} | ${c.measured} | ${c.target} | ${c.verdict} |`)
  out.push('')

  out.push(
    '## Throughput: service vs baseline',
    '',
    `Interleaved rounds; each figure is the median over rounds. Ratio = service req/s ÷ baseline req/s within the same round: median (min–max over rounds).` +
      ' CPU ratio = the same question asked of CPU time: baseline CPU µs per response ÷ service CPU µs per response (requests per CPU-second), which neither the load generator nor other processes limit.' +
      ` Latency here is under saturation (closed loop, ${report.settings.loadgen ?? 'autocannon'}, ${report.settings.connections} connections), so it is mostly queueing; see the fixed-rate table for p99.` +
      (report.scenarios.some((s) => s.scenario.measuredAs)
        ? ` Rows marked "cache off" are a second embedded instance started with RESPONSE_CACHE=off (its own seeded data), measured as one more target of the GET list rounds: its ratio is to the baseline's GET list run of the same round.`
        : ''),
    '',
    `| Scenario | ${labels.service} req/s | ${labels.baseline} req/s | Ratio | Target | ${labels.service} p50 / p99 ms | baseline p50 / p99 ms | Server CPU µs/req (service / baseline) | CPU ratio | Bytes/resp (service / baseline) |`,
    '|---|---:|---:|---|---:|---:|---:|---:|---|---:|',
  )
  for (const s of report.scenarios) {
    const a = s.targets.service
    const b = s.targets.baseline
    out.push(
      `| ${s.scenario.title} | ${int(a?.medianRps ?? NaN)} | ${int(b?.medianRps ?? NaN)} | ${ratioText(s.vsBaseline)} | ≥ ${s.scenario.ratioTarget.toFixed(2)} ${verdict(s.vsBaseline && s.vsBaseline.median >= s.scenario.ratioTarget)} |` +
        ` ${fixed(a?.p50Ms)} / ${fixed(a?.p99Ms)} | ${fixed(b?.p50Ms)} / ${fixed(b?.p99Ms)} | ${int(a?.cpuUsPerResponse ?? NaN)} / ${int(b?.cpuUsPerResponse ?? NaN)} | ${ratioText(s.cpuVsBaseline)} | ${int(a?.bytesPerResponse ?? NaN)} / ${int(b?.bytesPerResponse ?? NaN)} |`,
    )
  }
  out.push('')

  out.push('### Status codes answered (all rounds)', '', '| Scenario | Expected | Target | Statuses | Not expected | Connection errors + timeouts |', '|---|---:|---|---|---:|---:|')
  for (const s of report.scenarios) {
    for (const t of ['service', 'baseline', 'pg', 'prism'] as const) {
      const summary = s.targets[t]
      if (!summary) continue
      const label = t === 'service' && s.scenario.measuredAs ? labels[s.scenario.measuredAs.target] : labels[t]
      out.push(`| ${s.scenario.title} | ${expectedText(s.scenario.expectedStatus)} | ${label} | ${statusText(summary.statuses)} | ${int(summary.unexpected)} | ${int(summary.errors)} |`)
    }
  }
  out.push('')

  out.push(
    `## Latency at a fixed ${report.settings.latencyRate} req/s, ${report.settings.latencyConnections} connections`,
    '',
    `${report.settings.latencySeconds} s per run. GET list runs once per round, interleaved like the throughput runs (figures are medians over its runs, max is the worst); the other scenarios run once.`,
    '',
    'Server CPU per request here is measured at the same request rate for every target, so it is the fairest CPU comparison (at saturation, a slower server also pays more kernel time per response, waking an idle load generator). ' +
      'Open-loop generator (bench/lib/rate.ts): requests spread evenly, each timed from its dispatch, including any wait for one of the connections (so a slow server is not hidden by coordinated omission). "p99 from schedule" also counts the generator\'s own timer lag (≤ about 1 ms). Exact percentiles of every response, all statuses.',
    '',
    '| Scenario | Target | Runs | Achieved req/s | p50 ms | p90 ms | p99 ms (min–max) | p99.9 ms | max ms | p99 from schedule ms | p99 ≤ 5 ms | Server CPU µs/req | Other CPU (cores) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|',
  )
  for (const s of report.scenarios) {
    for (const t of ['service', 'baseline', 'pg'] as const) {
      const r = s.latency[t]
      if (!r) continue
      out.push(
        `| ${s.scenario.title} | ${labels[t]} | ${r.runs} | ${int(r.rps)} | ${fixed(r.latencyMs.p50)} | ${fixed(r.latencyMs.p90)} | ${fixed(r.latencyMs.p99)}${r.runs > 1 ? ` (${fixed(r.p99Min)}–${fixed(r.p99Max)})` : ''} | ${fixed(r.latencyMs.p999)} | ${fixed(r.latencyMs.max)} | ${fixed(r.scheduledP99Ms)} | ${t === 'baseline' ? '' : verdict(r.latencyMs.p99 <= 5)} | ${int(r.serverCpuUsPerResponse)} | ${fixed(r.otherCpuCores)}${r.otherCpuCores > NOISY_OTHER_CPU ? ' ⚠' : ''} |`,
      )
    }
  }
  out.push('')

  if (has('pg')) {
    out.push(`## ${labels.pg}`, '', `Same scenarios against a second instance of the service on a fresh PostgreSQL database and Redis, interleaved in the same rounds.`, '')
    out.push(`| Scenario | ${labels.pg} req/s | ÷ embedded (median, min–max) | ÷ baseline | p50 / p99 ms | Server CPU µs/req (Node process only) |`, '|---|---:|---|---|---:|---:|')
    for (const s of report.scenarios) {
      const p = s.targets.pg
      if (!p) continue
      out.push(`| ${s.scenario.title} | ${int(p.medianRps)} | ${ratioText(s.pgVsService)} | ${ratioText(s.pgVsBaseline)} | ${fixed(p.p50Ms)} / ${fixed(p.p99Ms)} | ${int(p.cpuUsPerResponse)} |`)
    }
    out.push('')
  }

  if (has('prism')) {
    out.push('## Prism mock', '', `\`prism mock openapi.json\` (static examples, default log level), interleaved in the same rounds. Multiple = service req/s ÷ Prism req/s within a round.`, '')
    out.push('| Scenario | Prism req/s | Service req/s | Service ÷ Prism | Prism bytes/resp |', '|---|---:|---:|---|---:|')
    for (const s of report.scenarios) {
      const p = s.targets.prism
      if (!p) continue
      out.push(`| ${s.scenario.title} | ${int(p.medianRps)} | ${int(s.targets.service?.medianRps ?? NaN)} | ${ratioText(s.serviceVsPrism, 1)} | ${int(p.bytesPerResponse)} |`)
    }
    out.push('')
  }

  out.push('## Peak memory (VmHWM) at the end of the run', '', '| Process | Peak RSS | RSS at end |', '|---|---:|---:|')
  for (const [t, m] of Object.entries(report.memory)) out.push(`| ${labels[t as TargetId]} | ${mib(m?.peakKiB)} | ${mib(m?.rssKiB)} |`)
  out.push('')

  out.push('## Notes', '', ...report.notes.map((n) => `- ${n}`), '')

  out.push(
    '## Every run',
    '',
    `"Other CPU": cores' worth of CPU the rest of the machine used during the run (PostgreSQL and Redis included, in that mode); on an otherwise idle machine it is near zero. ⚠ marks measured runs above ${NOISY_OTHER_CPU} cores: something else was competing for the 2 cores.`,
    '',
    '| Phase | Round | Scenario | Target | req/s | p50 ms | p99 ms | Statuses | Server CPU µs/req | Load generator CPU | Other CPU (cores) |',
    '|---|---:|---|---|---:|---:|---:|---|---:|---:|---:|',
  )
  const titles = Object.fromEntries(report.scenarios.map((s) => [s.scenario.id, s.scenario.title]))
  for (const r of report.runs) {
    out.push(
      `| ${r.phase} | ${r.round} | ${titles[r.scenario]} | ${labels[r.target]} | ${int(r.result.rps)} | ${fixed(r.result.latencyMs.p50)} | ${fixed(r.result.latencyMs.p99)} | ${statusText(r.result.statuses)} | ${int(r.result.serverCpuUsPerResponse)} | ${(r.result.loadgenCpuShare * 100).toFixed(0)} % | ${fixed(r.result.otherCpuCores)}${r.phase !== 'warmup' && r.result.otherCpuCores > NOISY_OTHER_CPU ? ' ⚠' : ''} |`,
    )
  }
  out.push('')
  return out.join('\n')
}

// ---- chart ---------------------------------------------------------------------------------------

const COLOURS: Record<TargetId, string> = { service: '#2563eb', baseline: '#9ca3af', pg: '#16a34a', prism: '#ea580c', nocache: '#7c3aed' }

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** One bar group per scenario: median req/s of each target; the service/baseline ratio under each group. */
export function toSvg(report: Report): string {
  const order: TargetId[] = (['service', 'pg', 'baseline', 'prism'] as const).filter((t) => report.scenarios.some((s) => s.targets[t]))
  const width = 960
  const height = 480
  const left = 80
  const right = 20
  const top = 70
  const bottom = 120
  const plotW = width - left - right
  const plotH = height - top - bottom
  const max = Math.max(1, ...report.scenarios.flatMap((s) => order.map((t) => s.targets[t]?.medianRps ?? 0)))
  const step = niceStep(max / 5)
  const yMax = Math.ceil(max / step) * step
  const y = (v: number) => top + plotH - (v / yMax) * plotH
  const groupW = plotW / report.scenarios.length
  const barW = Math.min(44, (groupW * 0.8) / order.length)

  const parts: string[] = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`)
  parts.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`)
  parts.push(`<text x="${width / 2}" y="24" text-anchor="middle" font-size="16" font-weight="bold">${escape(report.title)}: requests/s (median over rounds)</text>`)
  parts.push(`<text x="${width / 2}" y="42" text-anchor="middle" fill="#555">${escape(`${report.settings.connections} connections, ${report.settings.rounds} interleaved rounds of ${report.settings.seconds} s, ${report.environment.Node ?? ''}, ${report.finishedAt.slice(0, 10)}`)}</text>`)
  for (let v = 0; v <= yMax + 1e-9; v += step) {
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/>`)
    parts.push(`<text x="${left - 8}" y="${y(v) + 4}" text-anchor="end" fill="#555">${(v / 1000).toLocaleString('en-US')}k</text>`)
  }
  parts.push(`<text transform="translate(18 ${top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="#555">requests per second</text>`)

  report.scenarios.forEach((s, g) => {
    const present = order.filter((t) => s.targets[t])
    const x0 = left + g * groupW + (groupW - present.length * barW) / 2
    present.forEach((t, i) => {
      const v = s.targets[t]?.medianRps ?? 0
      const x = x0 + i * barW
      parts.push(`<rect x="${x + 2}" y="${y(v)}" width="${barW - 4}" height="${top + plotH - y(v)}" fill="${COLOURS[t]}"><title>${escape(`${report.labels[t]}: ${Math.round(v)} req/s`)}</title></rect>`)
      parts.push(`<text x="${x + barW / 2}" y="${y(v) - 4}" text-anchor="middle" font-size="10">${(v / 1000).toFixed(1)}k</text>`)
    })
    const cx = left + g * groupW + groupW / 2
    parts.push(`<text x="${cx}" y="${top + plotH + 18}" text-anchor="middle" font-weight="bold">${escape(s.scenario.title)}</text>`)
    if (s.vsBaseline) {
      const colour = s.vsBaseline.median >= s.scenario.ratioTarget ? '#15803d' : '#b91c1c'
      parts.push(`<text x="${cx}" y="${top + plotH + 34}" text-anchor="middle" fill="${colour}">${escape(`${s.vsBaseline.median.toFixed(2)} × baseline${s.cpuVsBaseline ? ` (CPU ${s.cpuVsBaseline.median.toFixed(2)})` : ''}`)}</text>`)
      parts.push(`<text x="${cx}" y="${top + plotH + 48}" text-anchor="middle" fill="#555" font-size="11">${escape(`target ≥ ${s.scenario.ratioTarget.toFixed(2)}`)}</text>`)
    }
    if (s.serviceVsPrism) parts.push(`<text x="${cx}" y="${top + plotH + 62}" text-anchor="middle" fill="#555" font-size="11">${escape(`${s.serviceVsPrism.median.toFixed(1)} × Prism (target ≥ 10)`)}</text>`)
  })
  parts.push(`<line x1="${left}" x2="${width - right}" y1="${top + plotH}" y2="${top + plotH}" stroke="#111"/>`)

  // Legend
  let lx = left
  for (const t of order) {
    parts.push(`<rect x="${lx}" y="${height - 30}" width="12" height="12" fill="${COLOURS[t]}"/>`)
    const label = report.labels[t] ?? t
    parts.push(`<text x="${lx + 18}" y="${height - 20}">${escape(label)}</text>`)
    lx += 30 + label.length * 7
  }
  parts.push('</svg>')
  return parts.join('\n') + '\n'
}

function niceStep(raw: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * magnitude) return m * magnitude
  return 10 * magnitude
}
