import type { ComponentChildren } from 'preact'
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { useReadOnly } from './read-only'
import { formatUtc } from './time'

const numbers = new Intl.NumberFormat()

export function formatNumber(value: number): string {
  return numbers.format(value)
}

/** A moment, in UTC on a 24-hour clock (as everywhere in the dashboard), with the exact value for machines. */
export function DateTime({ value, empty = '—' }: { value: string | null; empty?: string }) {
  if (!value) return <>{empty}</>
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return <>{value}</>
  return (
    <time dateTime={value} title={date.toISOString()}>
      {formatUtc(date, 'dateTime')}
    </time>
  )
}

/** An error to read at once: announced by screen readers. */
export function ErrorMessage({ error }: { error: ComponentChildren }) {
  if (!error) return null
  return (
    <p class="message message-error" role="alert">
      {error}
    </p>
  )
}

export type StatusTone = 'success' | 'warning'

/** A polite live region: present before its text changes, so the change is announced. */
export function StatusMessage({ text, tone = 'success' }: { text: string | null; tone?: StatusTone }) {
  return (
    <p class={text ? `message message-${tone}` : 'message-empty'} role="status">
      {text ?? ''}
    </p>
  )
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  )
}

/** Text hidden on screen but read by screen readers: makes repeated button names unique. */
export function Hidden({ children }: { children: ComponentChildren }) {
  return <span class="visually-hidden">{children}</span>
}

async function copyText(value: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(value)
      return true
    }
  } catch {
    // Refused (permissions): fall back to a selection.
  }
  const area = document.createElement('textarea')
  area.value = value
  area.setAttribute('readonly', '')
  area.className = 'visually-hidden'
  document.body.append(area)
  area.select()
  let copied = false
  try {
    copied = document.execCommand('copy')
  } catch {
    copied = false
  }
  area.remove()
  return copied
}

/** Copies a value to the clipboard and says so; `what` completes the button's name for screen readers. */
export function CopyButton({ value, label = 'Copy', what }: { value: string; label?: string; what?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  const timer = useRef<number | undefined>(undefined)
  useEffect(() => () => window.clearTimeout(timer.current), [])
  const copy = async () => {
    const ok = await copyText(value)
    setState(ok ? 'copied' : 'failed')
    window.clearTimeout(timer.current)
    timer.current = window.setTimeout(() => setState('idle'), 4000)
  }
  return (
    <span class="copy">
      <button type="button" class="button-small" onClick={copy}>
        {label}
        {what && <Hidden> {what}</Hidden>}
      </button>
      <span class="copy-status" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text and copy it' : ''}
      </span>
    </span>
  )
}

/**
 * A secret shown this once (a new key, a one-time password): highlighted, with the warning, a copy
 * button and a button that dismisses it. Focus moves to its heading when a new one is shown, and,
 * once dismissed, to the element `refocus` names (the form that made it, for the next one).
 */
export function SecretBox({
  title,
  secret,
  what,
  testId,
  refocus,
  onDone,
  children,
}: {
  title: string
  secret: string
  /** What the secret is, for the buttons: "key" gives "Copy key" and "I have copied the key". */
  what: string
  testId: string
  refocus: string
  onDone: () => void
  /** The warning: that it will not be shown again, and what to do with it. */
  children: ComponentChildren
}) {
  const heading = useRef<HTMLHeadingElement>(null)
  const id = useId()
  // In the render that shows it (see useModal), not after the next paint.
  useLayoutEffect(() => heading.current?.focus(), [secret])
  return (
    <section class="secret-box" aria-labelledby={id}>
      <h3 id={id} ref={heading} tabIndex={-1}>
        {title}
      </h3>
      <p class="warning">{children}</p>
      <div class="secret-row">
        <code class="secret" data-testid={testId}>
          {secret}
        </code>
        <CopyButton value={secret} label={`Copy ${what}`} />
      </div>
      <button
        type="button"
        onClick={() => {
          onDone()
          document.getElementById(refocus)?.focus()
        }}
      >
        I have copied the {what}
      </button>
    </section>
  )
}

/**
 * A table that scrolls sideways on narrow screens. One without buttons inside is focusable
 * (`focusable`), so the keyboard scrolls it too.
 */
export function TableWrap({ label, focusable = false, children }: { label: string; focusable?: boolean; children: ComponentChildren }) {
  if (!focusable) return <div class="table-wrap">{children}</div>
  return (
    <div class="table-wrap" role="group" aria-label={label} tabIndex={0}>
      {children}
    </div>
  )
}

export type BadgeTone = 'good' | 'bad' | 'wait' | 'neutral'

/** A short state, coloured by how it is going. */
export function Badge({ tone, children }: { tone: BadgeTone; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>
}

/** A table's head: a column heading per name. */
export function ColumnHeads({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th key={name} scope="col">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  )
}

/** A term and its value in a list of facts (`<dl class="facts">`). */
export function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  )
}

/** A moment as a fact: left out when there is none, unless `empty` says what to show instead. */
export function MomentFact({ term, value, empty }: { term: string; value: string | null; empty?: string }) {
  if (!value && empty === undefined) return null
  return (
    <Fact term={term}>
      <DateTime value={value} empty={empty} />
    </Fact>
  )
}

/**
 * A small button of a table row; `what` completes its name for screen readers ("Remove Rex").
 * `shows`: it only shows something (a delivery's attempts), so a viewer has it too.
 */
export function RowButton({ label, what, danger = false, shows = false, onClick }: { label: string; what: string; danger?: boolean; shows?: boolean; onClick: () => void }) {
  // A viewer's change could only be refused: the page says so once, and offers none.
  if (useReadOnly() && !shows) return null
  return (
    <button type="button" class={danger ? 'button-small button-danger' : 'button-small'} onClick={onClick}>
      {label}
      <Hidden> {what}</Hidden>
    </button>
  )
}

/** The buttons of a table row, side by side in their cell (the flex box is inside the cell: a cell that is itself a flex box leaves the table). */
export function RowActions({ children }: { children: ComponentChildren }) {
  return (
    <td class="row-actions">
      <div class="actions">{children}</div>
    </td>
  )
}

/** A list's filters: their fields and "Show", which applies them (the page keeps them in its address). */
export function FilterForm({ label, onApply, children }: { label: string; onApply: () => void; children: ComponentChildren }) {
  return (
    <form
      class="form inline-form filters"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault()
        onApply()
      }}
    >
      {children}
      <button type="submit" class="button-primary">
        Show
      </button>
    </form>
  )
}

/**
 * A table of rows that, on a phone, each become a block of labelled lines (each cell's
 * `data-label`), so nothing needs a sideways scroll. `children` are its rows.
 */
export function StackedTable({ kind, caption, hideCaption = false, columns, children }: { kind: string; caption: string; hideCaption?: boolean; columns: readonly string[]; children: ComponentChildren }) {
  return (
    <TableWrap label={caption}>
      <table class={`${kind} stacked`}>
        <caption class={hideCaption ? 'visually-hidden' : undefined}>{caption}</caption>
        <ColumnHeads names={columns} />
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
  )
}
