import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError, type Session } from './api'
import { ErrorMessage } from './components'
import { useSubmit } from './dialogs'
import { NewPasswordFields, PasswordField, PASSWORDS_DIFFER } from './passwords'

/**
 * Sign-in, in two steps when the password is a one-time password (from an operator, for a new
 * account or after a reset): the API answers `password_change_required`, and the user chooses
 * their own, sent with the same sign-in, before any other page opens.
 */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (session: Session) => void; notice: string | null }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  // Set once the API asked for a password of the user's own: the one-time password stays in `password`.
  const [choosing, setChoosing] = useState(false)
  const [newPassword, setNewPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  const heading = useRef<HTMLHeadingElement>(null)

  const signIn = useSubmit(async () => {
    try {
      // A wrong password is an error to show here, not a reason to come back to this page.
      const session = await api.post('/session', { body: { email: email.trim(), password }, redirectOn401: false })
      setPassword('')
      onSignedIn(session)
    } catch (caught) {
      if (!(caught instanceof ApiError && caught.code === 'password_change_required')) throw caught
      setChoosing(true)
    }
  })

  const choose = useSubmit(async () => {
    if (newPassword !== confirmation) throw new Error(PASSWORDS_DIFFER)
    const session = await api.post('/session', { body: { email: email.trim(), password, newPassword }, redirectOn401: false })
    setPassword('')
    setNewPassword('')
    setConfirmation('')
    onSignedIn(session)
  })

  // The second step is a new page for the reader: start there.
  useEffect(() => {
    if (choosing) heading.current?.focus()
  }, [choosing])

  const back = () => {
    setChoosing(false)
    setPassword('')
    setNewPassword('')
    setConfirmation('')
  }

  if (choosing) {
    return (
      <div class="narrow">
        <h1 tabIndex={-1} ref={heading}>
          Choose your password
        </h1>
        <p class="message message-info">You signed in with a one-time password. Choose your own to continue: the one-time password then stops working.</p>
        <form class="form card" onSubmit={choose.submit} aria-describedby={choose.error ? 'choose-error' : undefined}>
          <div class="field">
            <label for="choose-email">Email</label>
            <input id="choose-email" name="email" type="email" autoComplete="username" readOnly value={email.trim()} />
          </div>
          <NewPasswordFields idPrefix="choose" password={newPassword} confirmation={confirmation} setPassword={setNewPassword} setConfirmation={setConfirmation} />
          <div id="choose-error">
            <ErrorMessage error={choose.error} />
          </div>
          <div class="actions">
            <button type="submit" class="button-primary" disabled={choose.busy}>
              {choose.busy ? 'Saving…' : 'Save password and sign in'}
            </button>
            <button type="button" onClick={back}>
              Back
            </button>
          </div>
        </form>
      </div>
    )
  }

  return (
    <div class="narrow">
      <h1 tabIndex={-1}>Sign in</h1>
      {notice && <p class="message message-info">{notice}</p>}
      <form class="form card" onSubmit={signIn.submit} aria-describedby={signIn.error ? 'sign-in-error' : undefined}>
        <div class="field">
          <label for="sign-in-email">Email</label>
          <input id="sign-in-email" name="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </div>
        <PasswordField id="sign-in-password" label="Password" autoComplete="current-password" value={password} setValue={setPassword} />
        <div id="sign-in-error">
          <ErrorMessage error={signIn.error} />
        </div>
        <button type="submit" class="button-primary" disabled={signIn.busy}>
          {signIn.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  )
}
