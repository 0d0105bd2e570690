/** Password fields: one to type a password, and the pair that chooses a new one. */

/** The API's rule for a chosen password (it checks it too, and says so). */
const MIN_LENGTH = 12
const MAX_LENGTH = 1024

export const PASSWORDS_DIFFER = 'The two new passwords differ: type the same password in both fields.'

interface PasswordFieldProps {
  id: string
  label: string
  /** `current-password` to type one's password, `new-password` to choose one (password managers read it). */
  autoComplete: 'current-password' | 'new-password'
  value: string
  setValue: (value: string) => void
  minLength?: number
  help?: string
}

/** A labelled password input, with its help under it. */
export function PasswordField({ id, label, autoComplete, value, setValue, minLength, help }: PasswordFieldProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="password"
        autoComplete={autoComplete}
        required
        minLength={minLength}
        maxLength={MAX_LENGTH}
        aria-describedby={help ? `${id}-help` : undefined}
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      {help && (
        <p id={`${id}-help`} class="help">
          {help}
        </p>
      )}
    </div>
  )
}

/** A new password, typed twice. */
export function NewPasswordFields({
  idPrefix,
  password,
  confirmation,
  setPassword,
  setConfirmation,
}: {
  idPrefix: string
  password: string
  confirmation: string
  setPassword: (value: string) => void
  setConfirmation: (value: string) => void
}) {
  return (
    <>
      <PasswordField
        id={`${idPrefix}-new-password`}
        label="New password"
        autoComplete="new-password"
        minLength={MIN_LENGTH}
        help={`${MIN_LENGTH} characters or more; a few unrelated words make a good one.`}
        value={password}
        setValue={setPassword}
      />
      <PasswordField id={`${idPrefix}-confirm-password`} label="New password again" autoComplete="new-password" value={confirmation} setValue={setConfirmation} />
    </>
  )
}
