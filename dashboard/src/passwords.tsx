/** The fields of a password a person chooses: typed twice, with the API's length rule. */

/** The API's rule for a chosen password (it checks it too, and says so). */
const MIN_LENGTH = 12
const MAX_LENGTH = 1024

export const PASSWORDS_DIFFER = 'The two new passwords differ: type the same password in both fields.'

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
      <div class="field">
        <label for={`${idPrefix}-new-password`}>New password</label>
        <input
          id={`${idPrefix}-new-password`}
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_LENGTH}
          maxLength={MAX_LENGTH}
          aria-describedby={`${idPrefix}-new-password-help`}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <p id={`${idPrefix}-new-password-help`} class="help">
          {MIN_LENGTH} characters or more; a few unrelated words make a good one.
        </p>
      </div>
      <div class="field">
        <label for={`${idPrefix}-confirm-password`}>New password again</label>
        <input
          id={`${idPrefix}-confirm-password`}
          type="password"
          autoComplete="new-password"
          required
          maxLength={MAX_LENGTH}
          value={confirmation}
          onInput={(e) => setConfirmation(e.currentTarget.value)}
        />
      </div>
    </>
  )
}
