import type { ComponentChildren, JSX, RefObject } from 'preact'
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { messageOf } from './api'
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

export interface ConfirmOptions {
  title: string
  body: ComponentChildren
  confirmLabel: string
  /** The button that changes nothing; default "Cancel" (give another when the action itself is a cancellation). */
  cancelLabel?: string
  danger?: boolean
}

/**
 * What every modal of the dashboard does: a native <dialog> opened on mount (focus kept inside,
 * Escape cancels), focus on `first()` when it opens, and back on what had it (the button that
 * asked) when it closes. Spread the answer onto the <dialog>.
 *
 * A layout effect: it opens the dialog in the render that adds it, and its clean-up gives the
 * focus back before the dialog leaves the page. A passive effect's clean-up would run only after
 * the next paint, with the focus on the page's body meanwhile.
 */
function useModal(onCancel: () => void, first: () => HTMLElement | null | undefined) {
  const ref = useRef<HTMLDialogElement>(null)
  const mounted = useRef(false)
  useLayoutEffect(() => {
    const element = ref.current
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    mounted.current = true
    if (element && !element.open) element.showModal()
    first()?.focus()
    return () => {
      mounted.current = false
      if (element?.open) element.close()
      if (opener?.isConnected) opener.focus()
      else document.querySelector<HTMLElement>('main h1')?.focus()
    }
  }, [])
  return {
    ref,
    onCancel: (event: Event) => {
      // Escape: closed by the owner, which unmounts this.
      event.preventDefault()
      onCancel()
    },
    onClose: () => {
      // Closed by the browser itself (a repeated Escape): the owner forgets it too.
      if (mounted.current) onCancel()
    },
  }
}

/** A modal dialog with its title (see useModal): focus on `initialFocus` when it opens. */
export function Modal({
  title,
  describedBy,
  initialFocus,
  onCancel,
  children,
}: {
  title: string
  describedBy?: string
  initialFocus: RefObject<HTMLElement | null>
  onCancel: () => void
  children: ComponentChildren
}) {
  const id = useId()
  const modal = useModal(onCancel, () => initialFocus.current)
  return (
    <dialog {...modal} class="dialog" aria-labelledby={`${id}-title`} aria-describedby={describedBy}>
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
    </dialog>
  )
}

/** A modal confirmation: Cancel (which has the focus when it opens) and the action. */
export function ConfirmDialog({ title, body, confirmLabel, cancelLabel = 'Cancel', danger = false, onConfirm, onCancel }: ConfirmOptions & { onConfirm: () => void; onCancel: () => void }) {
  const cancel = useRef<HTMLButtonElement>(null)
  const bodyId = useId()
  return (
    <Modal title={title} describedBy={bodyId} initialFocus={cancel} onCancel={onCancel}>
      <div id={bodyId} class="dialog-body">
        {body}
      </div>
      <div class="dialog-actions">
        <button type="button" ref={cancel} onClick={onCancel}>
          {cancelLabel}
        </button>
        <button type="button" class={danger ? 'button-danger' : 'button-primary'} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  )
}

/**
 * A modal form (see useModal): its fields, what went wrong under them, Cancel and the submit
 * button. Focus starts on the first field.
 */
export function FormDialog({ title, submitLabel, form, onCancel, children }: { title: string; submitLabel: string; form: Submission; onCancel: () => void; children: ComponentChildren }) {
  const fields = useRef<HTMLFormElement>(null)
  const id = useId()
  const modal = useModal(onCancel, () => fields.current?.querySelector<HTMLElement>('input, select, textarea'))
  return (
    <dialog {...modal} class="dialog" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <form ref={fields} class="form" onSubmit={form.submit}>
        {children}
        <ErrorMessage error={form.error} />
        <div class="dialog-actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" class="button-primary" disabled={form.busy}>
            {submitLabel}
          </button>
        </div>
      </form>
    </dialog>
  )
}

export interface Submission {
  busy: boolean
  error: ComponentChildren
  run: () => Promise<void>
  submit: (event: Event) => void
}

/**
 * A form's submission: `submit`, the form's `onSubmit`, runs `action` with `busy` true meanwhile
 * and `error` saying what went wrong (cleared on each try); `run` does the same without an event
 * (after a confirmation). `describe` turns what was thrown into what to show: its message, unless
 * the page has a truer answer.
 */
export function useSubmit(action: () => Promise<void>, describe: (caught: unknown) => ComponentChildren = messageOf): Submission {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ComponentChildren>(null)
  const run = async () => {
    setBusy(true)
    setError(null)
    try {
      await action()
    } catch (caught) {
      setError(describe(caught))
    } finally {
      setBusy(false)
    }
  }
  const submit = (event: Event) => {
    event.preventDefault()
    void run()
  }
  return { busy, error, run, submit }
}

/** A page's outcome line: what its last action did (`status`) or why it failed (`error`). */
export interface Actions {
  status: string | null
  error: string | null
  setStatus: (status: string | null) => void
  setError: (error: string | null) => void
  /** Runs an action of the page: clears both lines, then shows its message, or the API's on failure. */
  act: (action: () => Promise<string>) => Promise<void>
}

export function useActions(): Actions {
  const [status, setStatus] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const act = async (action: () => Promise<string>) => {
    setError(null)
    setStatus(null)
    try {
      setStatus(await action())
    } catch (caught) {
      setError(messageOf(caught))
    }
  }
  return { status, error, setStatus, setError, act }
}

/**
 * `ask(options, action)` opens a confirmation; `action` runs only when confirmed. Render
 * `dialog` somewhere in the page.
 */
export function useConfirm(): { dialog: JSX.Element | null; ask: (options: ConfirmOptions, action: () => void) => void } {
  const [pending, setPending] = useState<{ options: ConfirmOptions; action: () => void; key: number } | null>(null)
  const dialog = pending ? (
    <ConfirmDialog
      key={pending.key}
      {...pending.options}
      onCancel={() => setPending(null)}
      onConfirm={() => {
        setPending(null)
        pending.action()
      }}
    />
  ) : null
  return { dialog, ask: (options, action) => setPending({ options, action, key: Date.now() + Math.random() }) }
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

/** A card holding one form: its heading, the fields, the submit button, then what went wrong. */
export function FormCard({ id, title, submitLabel, form, children }: { id: string; title: string; submitLabel: string; form: Submission; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      <form class="form inline-form" onSubmit={form.submit}>
        {children}
        <button type="submit" class="button-primary" disabled={form.busy}>
          {submitLabel}
        </button>
      </form>
      <ErrorMessage error={form.error} />
    </section>
  )
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

/** A small button of a table row; `what` completes its name for screen readers ("Remove Rex"). */
export function RowButton({ label, what, danger = false, onClick }: { label: string; what: string; danger?: boolean; onClick: () => void }) {
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
