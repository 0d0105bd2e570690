/**
 * HTML built by construction: every value interpolated into `html`…`` is escaped, unless it is
 * itself the result of `html` (or of `raw`, for markup the code wrote). Arrays are joined, and
 * `undefined`, `null` and `false` write nothing, so conditionals and lists read as JSX would.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

type Part = SafeHtml | string | number | boolean | null | undefined | readonly Part[]

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!)
}

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return ''
  if (part instanceof SafeHtml) return part.value
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('')
  return escapeHtml(String(part))
}

export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!
  return new SafeHtml(out)
}

/** Markup the code itself wrote (never a value from a request or the database). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup)
}

/**
 * JSON for a `<script type="application/ld+json">`: `<`, `>` and `&` as `\u` escapes (so no
 * `</script>` or `<!--` can end or change the element), and the line separators JavaScript
 * parsers once refused.
 */
export function jsonForScript(value: unknown): SafeHtml {
  return new SafeHtml(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  )
}
