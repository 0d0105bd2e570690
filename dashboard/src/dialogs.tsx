/**
 * What asks and submits: modal dialogs (a confirmation, a form), the submission of a form and a
 * page's outcome line, and the card that holds a form.
 */
import type { ComponentChildren, JSX, RefObject } from 'preact'
import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { messageOf } from './api'
import { ErrorMessage } from './components'
import { useReadOnly } from './read-only'

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


/** A card holding one form: its heading, the fields, the submit button, then what went wrong. */
export function FormCard({ id, title, submitLabel, form, children }: { id: string; title: string; submitLabel: string; form: Submission; children: ComponentChildren }) {
  // Every FormCard adds something: a viewer's addition could only be refused.
  if (useReadOnly()) return null
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
