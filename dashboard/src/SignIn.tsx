import { useState } from 'preact/hooks'
import { api, type Session } from './api'
import { ErrorMessage, useSubmit } from './components'

export function SignIn({ onSignedIn, notice }: { onSignedIn: (session: Session) => void; notice: string | null }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const { busy, error, submit } = useSubmit(async () => {
    // A wrong password is an error to show here, not a reason to come back to this page.
    const session = await api<Session>('POST', '/session', { email: email.trim(), password }, { redirectOn401: false })
    setPassword('')
    onSignedIn(session)
  })

  return (
    <div class="narrow">
      <h1 tabIndex={-1}>Sign in</h1>
      {notice && <p class="message message-info">{notice}</p>}
      <form class="form card" onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <div class="field">
          <label for="sign-in-email">Email</label>
          <input id="sign-in-email" name="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="sign-in-password">Password</label>
          <input
            id="sign-in-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </div>
        <div id="sign-in-error">
          <ErrorMessage error={error} />
        </div>
        <button type="submit" class="button-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  )
}
