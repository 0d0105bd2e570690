import { useState } from 'preact/hooks'
import { api, type Session } from './api'
import { ErrorMessage, Fact, StatusMessage } from './components'
import { useSubmit } from './dialogs'
import { NewPasswordFields, PasswordField, PASSWORDS_DIFFER } from './passwords'

/** The signed-in user's own account: who they are, and their password. */
export function Account({ session }: { session: Session }) {
  const { email, role, projects } = session.user
  const [current, setCurrent] = useState('')
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  const [status, setStatus] = useState<string | null>(null)

  const change = useSubmit(async () => {
    setStatus(null)
    if (password !== confirmation) throw new Error(PASSWORDS_DIFFER)
    await api.put('/account/password', { body: { currentPassword: current, newPassword: password } })
    setCurrent('')
    setPassword('')
    setConfirmation('')
    setStatus('Your password is changed. Your other sessions are signed out; this one stays.')
  })

  return (
    <>
      <h1 tabIndex={-1}>Account</h1>
      <dl class="facts">
        <Fact term="Email">{email}</Fact>
        <Fact term="Role">{role === 'operator' ? 'Operator: every project, every action' : 'Owner: your projects only'}</Fact>
        {role === 'owner' && <Fact term="Projects">{projects.join(', ') || 'none yet'}</Fact>}
      </dl>
      <section class="card narrow-card" aria-labelledby="change-password">
        <h2 id="change-password">Change your password</h2>
        <form class="form" onSubmit={change.submit}>
          <PasswordField id="account-current-password" label="Current password" autoComplete="current-password" value={current} setValue={setCurrent} />
          <NewPasswordFields idPrefix="account" password={password} confirmation={confirmation} setPassword={setPassword} setConfirmation={setConfirmation} />
          <ErrorMessage error={change.error} />
          <div>
            <button type="submit" class="button-primary" disabled={change.busy}>
              {change.busy ? 'Changing…' : 'Change password'}
            </button>
          </div>
        </form>
        <StatusMessage text={status} />
      </section>
    </>
  )
}
