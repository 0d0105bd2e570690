/**
 * Every moment the dashboard shows goes through `formatUtc`: one time zone, UTC, on a 24-hour
 * clock, and said. Usage is counted per UTC minute and day, so the rest of the page speaks the
 * same time as its charts, whatever the reader's own time zone.
 */
export type TimeStyle =
  /** `2026-11-24 16:55 UTC` */
  | 'dateTime'
  /** `16:55:37 UTC` */
  | 'time'
  /** `16:55 UTC` */
  | 'minute'
  /** `16:55`, for a chart's axis (the chart says UTC once) */
  | 'minuteShort'
  /** `Tue 2026-11-24 UTC` */
  | 'day'
  /** `Tue 24`, for a chart's axis */
  | 'dayShort'

const weekday = new Intl.DateTimeFormat('en-US', { weekday: 'short', timeZone: 'UTC' })

export function formatUtc(value: Date | string, style: TimeStyle): string {
  const date = typeof value === 'string' ? new Date(value) : value
  if (Number.isNaN(date.getTime())) return String(value)
  const iso = date.toISOString()
  const day = iso.slice(0, 10)
  const minute = iso.slice(11, 16)
  switch (style) {
    case 'dateTime':
      return `${day} ${minute} UTC`
    case 'time':
      return `${iso.slice(11, 19)} UTC`
    case 'minute':
      return `${minute} UTC`
    case 'minuteShort':
      return minute
    case 'day':
      return `${weekday.format(date)} ${day} UTC`
    case 'dayShort':
      return `${weekday.format(date)} ${date.getUTCDate()}`
  }
}
