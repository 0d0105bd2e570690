import type { ComponentChildren } from 'preact'

/** What a control carries to be read with its help and its error: spread onto the input. */
export interface Described {
  id: string
  'aria-describedby'?: string
  'aria-invalid'?: 'true'
}

interface FieldProps {
  id: string
  label: string
  /** A line under the control (a limit, an example); read with it. */
  help?: ComponentChildren
  /** What is wrong with the value: shown under the control, read with it, and the control marked invalid. */
  error?: string | null
  wide?: boolean
}

/** A labelled control with its help and its error, both tied to it for screen readers. */
export function Field({ id, label, help, error, wide = false, children }: FieldProps & { children: (described: Described) => ComponentChildren }) {
  const helpId = help ? `${id}-help` : undefined
  const errorId = error ? `${id}-error` : undefined
  const describedBy = [errorId, helpId].filter(Boolean).join(' ') || undefined
  return (
    <div class={wide ? 'field field-wide' : 'field'}>
      <label for={id}>{label}</label>
      {children({ id, 'aria-describedby': describedBy, ...(error && { 'aria-invalid': 'true' }) })}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
      {help && (
        <p class="help" id={helpId}>
          {help}
        </p>
      )}
    </div>
  )
}

/** The attributes of a text-like input the forms use. */
interface InputProps {
  type?: 'text' | 'date' | 'number' | 'search' | 'url'
  required?: boolean
  maxLength?: number
  min?: number | string
  max?: number | string
  step?: number | string
  inputMode?: 'text' | 'numeric' | 'decimal' | 'url'
  autoComplete?: string
  list?: string
  disabled?: boolean
}

/** A labelled text input (or date, number, search…: `type`); `onChange` with its text. */
export function TextField({ value, onChange, input = {}, ...field }: FieldProps & { value: string; onChange: (value: string) => void; input?: InputProps }) {
  return <Field {...field}>{(described) => <input {...input} {...described} value={value} onInput={(e) => onChange(e.currentTarget.value)} />}</Field>
}

/** A labelled text area; `maxLength` also says how much is left. */
export function TextAreaField({ value, onChange, maxLength, rows = 4, ...field }: FieldProps & { value: string; onChange: (value: string) => void; maxLength: number; rows?: number }) {
  const left = maxLength - value.length
  return (
    <Field {...field} help={field.help ?? `${left.toLocaleString('en')} of ${maxLength.toLocaleString('en')} characters left`}>
      {(described) => <textarea {...described} rows={rows} maxLength={maxLength} value={value} onInput={(e) => onChange(e.currentTarget.value)} />}
    </Field>
  )
}

/** A labelled select of `options`, in order: each a value and the text shown for it. */
export function SelectField<T extends string>({ value, options, onChange, ...field }: FieldProps & { value: T; options: readonly { value: T; text: string }[]; onChange: (value: T) => void }) {
  return (
    <Field {...field}>
      {(described) => (
        <select {...described} value={value} onChange={(e) => onChange(e.currentTarget.value as T)}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.text}
            </option>
          ))}
        </select>
      )}
    </Field>
  )
}

/** A box to tick, its label beside it. */
export function CheckboxField({ id, label, checked, disabled, onChange }: { id: string; label: string; checked: boolean; disabled?: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="checkbox" for={id}>
      <input id={id} type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.currentTarget.checked)} />
      {label}
    </label>
  )
}

/** One choice among a few, as radio buttons in a group named by `legend`. */
export function RadioGroup<T extends string>({ name, legend, value, options, onChange }: { name: string; legend: string; value: T; options: readonly { value: T; text: string }[]; onChange: (value: T) => void }) {
  return (
    <fieldset class="radio-group">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} class="radio">
          <input type="radio" name={name} value={option.value} checked={value === option.value} onChange={() => onChange(option.value)} />
          {option.text}
        </label>
      ))}
    </fieldset>
  )
}
