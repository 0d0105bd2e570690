import type { RefObject } from 'preact'
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { api, messageOf, type Usage, type UsagePoint } from './api'
import { ColumnHeads, ErrorMessage, formatNumber, Loading, TableWrap } from './components'
import { formatUtc } from './time'

const REFRESH_MS = 60_000

export function UsagePage({ slug }: { slug: string }) {
  const [hour, setHour] = useState<Usage | null>(null)
  const [week, setWeek] = useState<Usage | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null)
  const [busy, setBusy] = useState(false)

  const load = async () => {
    setBusy(true)
    try {
      const [h, w] = await Promise.all([
        api.get('/projects/{slug}/usage', { path: { slug }, query: { range: 'hour' } }),
        api.get('/projects/{slug}/usage', { path: { slug }, query: { range: 'week' } }),
      ])
      setHour(h)
      setWeek(w)
      setError(null)
      setUpdatedAt(new Date())
    } catch (caught) {
      setError(messageOf(caught))
    } finally {
      setBusy(false)
    }
  }

  useEffect(() => {
    setHour(null)
    setWeek(null)
    void load()
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void load()
    }, REFRESH_MS)
    return () => window.clearInterval(timer)
  }, [slug])

  return (
    <>
      <h2 tabIndex={-1}>Usage</h2>
      <p class="help">
        The <code>/v1</code> requests answered for this project, per UTC minute and day, against the plan's limits: those answered 429 (rate limited) are
        among them. Each instance adds its counts every 10 seconds; this page refreshes every minute.
      </p>
      <p class="toolbar">
        <button type="button" onClick={() => void load()} disabled={busy}>
          Refresh
        </button>
        {updatedAt && (
          <span class="muted">
            Updated at <time dateTime={updatedAt.toISOString()}>{formatUtc(updatedAt, 'time')}</time>
          </span>
        )}
      </p>
      <ErrorMessage error={error} />
      {!hour && !error && <Loading what="usage" />}
      {hour && <UsageSection usage={hour} title="Requests per minute, last hour" unit="minute" limit={hour.limits.perMinute} />}
      {week && <UsageSection usage={week} title="Requests per day, last 7 days" unit="day" limit={week.limits.perDay} />}
    </>
  )
}

type Unit = 'minute' | 'day'

function shortLabel(at: string, unit: Unit): string {
  return formatUtc(at, unit === 'minute' ? 'minuteShort' : 'dayShort')
}

function longLabel(at: string, unit: Unit): string {
  return formatUtc(at, unit === 'minute' ? 'minute' : 'day')
}

function count(value: number, noun: string): string {
  return `${formatNumber(value)} ${noun}${value === 1 ? '' : 's'}`
}

function sum(points: UsagePoint[], field: 'requests' | 'limited' | 'bans'): number {
  return points.reduce((total, point) => total + point[field], 0)
}

function UsageSection({ usage, title, unit, limit }: { usage: Usage; title: string; unit: Unit; limit: number }) {
  const id = useId()
  const points = usage.points
  const requests = sum(points, 'requests')
  const limited = sum(points, 'limited')
  const bans = sum(points, 'bans')
  const peak = points.reduce<UsagePoint | undefined>((best, point) => (!best || point.requests > best.requests ? point : best), undefined)
  const period = unit === 'minute' ? 'the last hour' : 'the last 7 days'
  const bars = points.map((point) => ({ label: shortLabel(point.at, unit), long: longLabel(point.at, unit), point }))
  const summary =
    `${count(requests, 'request')}, ${formatNumber(limited)} answered 429, ${count(bans, 'ban')} started. ` +
    (peak && peak.requests > 0 ? `Peak: ${formatNumber(peak.requests)} in the ${unit} of ${longLabel(peak.at, unit)}. ` : '') +
    `Limit: ${formatNumber(limit)} per ${unit}.`

  return (
    <section class="card usage" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p>{summary}</p>
      <ul class="legend" aria-label="Legend">
        <li>
          <span class="swatch swatch-served" aria-hidden="true" /> Requests served
        </li>
        <li>
          <span class="swatch swatch-limited" aria-hidden="true" /> Answered 429 (rate limited)
        </li>
        <li>
          <span class="swatch swatch-limit" aria-hidden="true" /> Limit ({formatNumber(limit)} per {unit})
        </li>
        <li>Times in UTC</li>
      </ul>
      <BarChart
        bars={bars.map(({ label, long, point }) => ({
          label,
          title: `${long}: ${formatNumber(point.requests)} requests, ${formatNumber(point.limited)} answered 429`,
          segments: [
            { value: point.requests - point.limited, kind: 'served' },
            { value: point.limited, kind: 'limited' },
          ],
        }))}
        limit={limit}
        height={240}
        unit={unit}
        empty={`No requests in ${period} yet`}
        title={title}
        description={`Bar chart. ${summary} The table below has every value.`}
      />
      <h4>Bans started per {unit}</h4>
      <BarChart
        bars={bars.map(({ label, long, point }) => ({
          label,
          title: `${long}: ${formatNumber(point.bans)} bans started`,
          segments: [{ value: point.bans, kind: 'bans' }],
        }))}
        limit={null}
        height={120}
        unit={unit}
        empty={`No bans in ${period}`}
        title={`Bans started per ${unit}`}
        description={`Bar chart: ${count(bans, 'ban')} started in all. The table below has every value.`}
      />
      <details class="numbers">
        <summary>Show the numbers as a table</summary>
        <TableWrap label={`${title}: the numbers`} focusable>
          <table>
            <caption>{title}</caption>
            <ColumnHeads names={[unit === 'minute' ? 'Minute (UTC)' : 'Day (UTC)', 'Requests', 'Answered 429', 'Bans started']} />
            <tbody>
              {bars.map(({ long, point }) => (
                <tr key={point.at}>
                  <th scope="row">{long}</th>
                  <td class="number">{formatNumber(point.requests)}</td>
                  <td class="number">{formatNumber(point.limited)}</td>
                  <td class="number">{formatNumber(point.bans)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                <td class="number">{formatNumber(requests)}</td>
                <td class="number">{formatNumber(limited)}</td>
                <td class="number">{formatNumber(bans)}</td>
              </tr>
            </tfoot>
          </table>
        </TableWrap>
      </details>
    </section>
  )
}

interface Bar {
  label: string
  title: string
  segments: { value: number; kind: 'served' | 'limited' | 'bans' }[]
}

/** A round number at or above `value` for the top of the scale: 1, 2, 2.5 or 5 times a power of ten. */
export function niceMax(value: number): number {
  if (value <= 0) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (step * power >= value) return step * power
  }
  return 10 * power
}

/** Until the chart's width is measured. */
const DEFAULT_WIDTH = 720
const MARGIN = { top: 14, right: 8, bottom: 24, left: 48 }
/** Room an axis label needs, in CSS px: at 12 px, "16:55" or "Tue 24" and a gap. */
const LABEL_ROOM = { minute: 44, day: 52 }
/** Minute labels fall on round minutes: every 10, 15, 20 or 30. */
const MINUTE_STEPS = [10, 15, 20, 30]

/** The chart's width in CSS px, followed as the page resizes. */
function useWidth(): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(DEFAULT_WIDTH)
  useEffect(() => {
    const element = ref.current
    if (!element) return
    // The exact width (fractional pixels included): one SVG unit is then exactly one CSS px.
    const measure = () => setWidth(Math.max(200, element.getBoundingClientRect().width))
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  return [ref, width]
}

/**
 * Stacked bars in plain SVG, with a dashed line at the limit; an image for assistive technology,
 * described by its summary. Drawn at the width it is shown at (one SVG unit per CSS px), so its
 * labels keep their size on a phone instead of shrinking with the picture.
 */
function BarChart({ bars, limit, height, unit, empty, title, description }: { bars: Bar[]; limit: number | null; height: number; unit: Unit; empty: string; title: string; description: string }) {
  const id = useId()
  const [frame, width] = useWidth()
  const plotWidth = width - MARGIN.left - MARGIN.right
  const plotHeight = height - MARGIN.top - MARGIN.bottom
  const peak = Math.max(0, ...bars.map((bar) => bar.segments.reduce((total, s) => total + s.value, 0)))
  const max = niceMax(Math.max(peak, limit ?? 0, 1))
  const y = (value: number) => MARGIN.top + plotHeight - (value / max) * plotHeight
  const slot = plotWidth / Math.max(bars.length, 1)
  const barWidth = Math.max(slot * 0.75, 1)
  // Counts are whole: no half-way line when it would fall between two.
  const ticks = Number.isInteger(max / 2) ? [0, max / 2, max] : [0, max]
  const every = Math.ceil(LABEL_ROOM[unit] / slot)
  const labelEvery = unit === 'minute' ? (MINUTE_STEPS.find((step) => step >= every) ?? 60) : every

  return (
    <div class="chart-frame" ref={frame}>
      <svg class="chart" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-labelledby={`${id}-title ${id}-desc`}>
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <g class="axis-y">
          {ticks.map((tick) => (
            <g key={tick}>
              <line class="grid" x1={MARGIN.left} x2={width - MARGIN.right} y1={y(tick)} y2={y(tick)} />
              <text x={MARGIN.left - 6} y={y(tick) + 4}>
                {formatNumber(tick)}
              </text>
            </g>
          ))}
        </g>
        <g class="bars">
          {bars.map((bar, i) => {
            let base = 0
            const x = MARGIN.left + i * slot + (slot - barWidth) / 2
            return (
              <g key={i}>
                <title>{bar.title}</title>
                {/* A transparent full-height target, so every slot shows its tooltip. */}
                <rect class="hit" x={MARGIN.left + i * slot} y={MARGIN.top} width={slot} height={plotHeight} />
                {bar.segments.map((segment) => {
                  const top = y(base + segment.value)
                  const rect = segment.value > 0 ? <rect key={segment.kind} class={`bar bar-${segment.kind}`} x={x} y={top} width={barWidth} height={y(base) - top} /> : null
                  base += segment.value
                  return rect
                })}
              </g>
            )
          })}
        </g>
        <g class="axis-x">
          {bars.map((bar, i) =>
            i % labelEvery === 0 ? (
              <text key={i} x={MARGIN.left + i * slot + slot / 2} y={height - 6}>
                {bar.label}
              </text>
            ) : null,
          )}
        </g>
        {limit !== null && limit > 0 && (
          <g class="limit">
            <line class="limit-line" x1={MARGIN.left} x2={width - MARGIN.right} y1={y(limit)} y2={y(limit)} />
            <text class="limit-label" x={MARGIN.left + 4} y={y(limit) - 5}>
              limit {formatNumber(limit)}
            </text>
          </g>
        )}
        {peak === 0 && (
          <text class="chart-empty" x={MARGIN.left + plotWidth / 2} y={MARGIN.top + plotHeight / 2}>
            {empty}
          </text>
        )}
      </svg>
    </div>
  )
}
