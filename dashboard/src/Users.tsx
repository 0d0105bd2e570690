import { type ComponentChildren, Fragment } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, messageOf, ROLES, type Session, type User, type UserRole, type UserWithPassword } from './api'
import { Badge, ColumnHeads, DateTime, ErrorMessage, Loading, RowButton, SecretBox, StatusMessage, TableWrap } from './components'
import { Modal, useActions, useConfirm, useSubmit } from './dialogs'
import { SelectField } from './form-fields'
import { Link } from './router'

/** The accounts that sign in to this dashboard: operators only. */
export function Users({ session }: { session: Session }) {
  if (session.user.role !== 'operator') {
    return (
      <>
        <h1 tabIndex={-1}>Users</h1>
        <p>
          Only operators manage users. Your own password is on your <Link to="/account">Account</Link> page.
        </p>
      </>
    )
  }
  return <UserManagement self={session.user.email} />
}

/** A one-time password on screen, and why it was made. */
interface Shown {
  user: UserWithPassword
  reason: 'created' | 'reset'
}

function UserManagement({ self }: { self: string }) {
  const [users, setUsers] = useState<User[] | null>(null)
  const [projects, setProjects] = useState<string[]>([])
  const { status, error, setStatus, setError, act } = useActions()
  const [shown, setShown] = useState<Shown | null>(null)
  const [editing, setEditing] = useState<User | null>(null)
  const { dialog, ask } = useConfirm()

  useEffect(() => {
    api.get('/users').then(setUsers, (caught: unknown) => setError(messageOf(caught)))
    api.get('/projects').then((list) => setProjects(list.map((p) => p.slug)), (caught: unknown) => setError(messageOf(caught)))
  }, [])

  const replace = (user: User) => setUsers((list) => (list ?? []).map((u) => (u.id === user.id ? user : u)))

  const disable = (user: User) =>
    ask(
      {
        title: `Disable ${user.email}?`,
        body: <p>They cannot sign in any more, and their sessions end now, everywhere. You can enable them again later.</p>,
        confirmLabel: 'Disable user',
        danger: true,
      },
      () =>
        void act(async () => {
          replace(await api.post('/users/{userId}/disable', { path: { userId: user.id } }))
          return `${user.email} is disabled.`
        }),
    )

  const enable = (user: User) =>
    void act(async () => {
      replace(await api.post('/users/{userId}/enable', { path: { userId: user.id } }))
      return `${user.email} is enabled: they can sign in again.`
    })

  const remove = (user: User) =>
    ask(
      {
        title: `Delete ${user.email}?`,
        body: <p>The account is removed and its sessions end now. This cannot be undone; the audit log keeps the email in its entries.</p>,
        confirmLabel: 'Delete user',
        danger: true,
      },
      () =>
        void act(async () => {
          await api.delete('/users/{userId}', { path: { userId: user.id } })
          setUsers((list) => (list ?? []).filter((u) => u.id !== user.id))
          return `${user.email} is deleted.`
        }),
    )

  const reset = (user: User) =>
    ask(
      {
        title: `Reset the password of ${user.email}?`,
        body: <p>Their password stops working and their sessions end now. You get a one-time password to hand over; with it they choose their own at their next sign-in.</p>,
        confirmLabel: 'Reset password',
        danger: true,
      },
      () =>
        void act(async () => {
          const updated = await api.post('/users/{userId}/password-reset', { path: { userId: user.id } })
          replace(updated)
          setShown({ user: updated, reason: 'reset' })
          return `The password of ${user.email} is reset.`
        }),
    )

  return (
    <>
      <h1 tabIndex={-1}>Users</h1>
      <p>The accounts that sign in to this dashboard. Operators see and change everything; owners see only their projects.</p>
      <NewUserForm
        projects={projects}
        onCreated={(user) => {
          setUsers((list) => [...(list ?? []), user])
          setShown({ user, reason: 'created' })
          setStatus(null)
        }}
      />
      {shown && <OneTimePassword shown={shown} onDone={() => setShown(null)} />}
      <StatusMessage text={status} />
      <ErrorMessage error={error} />
      {users === null && !error && <Loading what="users" />}
      {users && users.length === 0 && <p>No users yet: create the first one above.</p>}
      {users && users.length > 0 && (
        <TableWrap label="Users">
          <table class="users stacked">
            <caption>Users</caption>
            <ColumnHeads names={['Email', 'Role', 'State', 'Last sign-in', 'Actions']} />
            <tbody>
              {users.map((user) => (
                <tr key={user.id}>
                  <th scope="row">
                    <Lines
                      first={
                        <>
                          <Email address={user.email} />
                          {user.email === self && <span class="muted"> (you)</span>}
                        </>
                      }
                      note={
                        <>
                          created <DateTime value={user.createdAt} />
                        </>
                      }
                    />
                  </th>
                  <td data-label="Role">
                    <Lines first={user.role} note={user.role === 'operator' ? 'every project' : user.projects.join(', ')} />
                  </td>
                  <td data-label="State">
                    <UserState user={user} />
                  </td>
                  <td data-label="Last sign-in">
                    <DateTime value={user.lastSignedInAt} empty="never" />
                  </td>
                  <td class="user-actions">
                    <UserActions user={user} own={user.email === self} actions={{ projects: setEditing, reset, disable, enable, remove }} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {editing && (
        <ProjectsDialog
          user={editing}
          projects={projects}
          onCancel={() => setEditing(null)}
          onSaved={(user) => {
            setEditing(null)
            replace(user)
            setError(null)
            setStatus(`${user.email} now belongs to ${user.projects.join(', ')}.`)
          }}
        />
      )}
      {dialog}
    </>
  )
}

/** What an operator can do to a user, one button each; on their own row, a link to their password. */
function UserActions({ user, own, actions }: { user: User; own: boolean; actions: Record<'projects' | 'reset' | 'disable' | 'enable' | 'remove', (user: User) => void> }) {
  if (own) return <Link to="/account">Your password</Link>
  const { email } = user
  return (
    <div class="actions">
      {user.role !== 'operator' && <RowButton label="Projects" what={`of ${email}`} onClick={() => actions.projects(user)} />}
      <RowButton label="Reset password" what={`of ${email}`} onClick={() => actions.reset(user)} />
      {user.state === 'enabled' ? (
        <RowButton label="Disable" what={email} onClick={() => actions.disable(user)} />
      ) : (
        <RowButton label="Enable" what={email} onClick={() => actions.enable(user)} />
      )}
      <RowButton label="Delete" what={email} danger onClick={() => actions.remove(user)} />
    </div>
  )
}

/** An address that wraps, when it must, after its `@` and its dots rather than anywhere. */
function Email({ address }: { address: string }) {
  const parts = address.split(/(?<=[@.])/)
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  )
}

/** A short state, and since or until when on a line of its own. */
function UserState({ user }: { user: User }) {
  const until = user.oneTimePasswordExpiresAt
  const [badge, note] =
    user.state === 'disabled'
      ? [<Badge tone="bad">Disabled</Badge>, <>since <DateTime value={user.disabledAt} /></>]
      : until && Date.parse(until) <= Date.now()
        ? [<Badge tone="bad">One-time password expired</Badge>, <>reset the password again</>]
        : until
          ? [<Badge tone="wait">One-time password</Badge>, <>until <DateTime value={until} /></>]
          : [<Badge tone="good">Enabled</Badge>, null]
  return <Lines first={badge} note={note} />
}

/** A value, and a note on a line of its own under it (one block, for the phone's labelled lines). */
function Lines({ first, note }: { first: ComponentChildren; note: ComponentChildren }) {
  return (
    <div class="lines">
      <span>{first}</span>
      {note && <span class="note">{note}</span>}
    </div>
  )
}

/** Checkboxes of the projects an owner belongs to. */
function ProjectChoices({ idPrefix, projects, chosen, setChosen }: { idPrefix: string; projects: string[]; chosen: string[]; setChosen: (chosen: string[]) => void }) {
  if (projects.length === 0) return <p class="help">There are no projects yet: create one on the Projects page first.</p>
  return (
    <fieldset class="choices">
      <legend>Projects</legend>
      <ul>
        {projects.map((slug) => (
          <li key={slug}>
            <input
              id={`${idPrefix}-${slug}`}
              type="checkbox"
              checked={chosen.includes(slug)}
              onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, slug] : chosen.filter((s) => s !== slug))}
            />
            <label for={`${idPrefix}-${slug}`}>{slug}</label>
          </li>
        ))}
      </ul>
    </fieldset>
  )
}

/** How the New user form names each role: what it may see and do. */
const ROLE_CHOICES: Record<UserRole, string> = {
  operator: 'operator: every project',
  owner: 'owner: their projects',
  viewer: 'viewer: sees their projects, changes nothing',
}

function NewUserForm({ projects, onCreated }: { projects: string[]; onCreated: (user: UserWithPassword) => void }) {
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<UserRole>('owner')
  const [chosen, setChosen] = useState<string[]>([])
  const form = useSubmit(async () => {
    const user = await api.post('/users', { body: { email: email.trim(), role, ...(role !== 'operator' && { projects: chosen }) } })
    setEmail('')
    setChosen([])
    onCreated(user)
  })

  return (
    <section class="card" aria-labelledby="new-user">
      <h2 id="new-user">New user</h2>
      <form class="form new-user" onSubmit={form.submit}>
        <div class="inline-form">
          <div class="field">
            <label for="new-user-email">Email</label>
            <input id="new-user-email" type="email" required maxLength={254} autoComplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </div>
          <SelectField
            id="new-user-role"
            label="Role"
            value={role}
            options={ROLES.map((value) => ({ value, text: ROLE_CHOICES[value] }))}
            onChange={setRole}
          />
        </div>
        {role !== 'operator' && <ProjectChoices idPrefix="new-user-project" projects={projects} chosen={chosen} setChosen={setChosen} />}
        <p class="help">They get a one-time password, shown to you once, and choose their own when they first sign in.</p>
        <ErrorMessage error={form.error} />
        <div>
          <button type="submit" class="button-primary" disabled={form.busy}>
            Create user
          </button>
        </div>
      </form>
    </section>
  )
}

/** The one-time password, this once: highlighted, with a copy button, until dismissed. */
function OneTimePassword({ shown: { user, reason }, onDone }: { shown: Shown; onDone: () => void }) {
  return (
    <SecretBox
      title={reason === 'created' ? `User ${user.email} created` : `Password of ${user.email} reset`}
      secret={user.password}
      what="password"
      testId="one-time-password"
      refocus="new-user-email"
      onDone={onDone}
    >
      <strong>Copy this one-time password now and hand it over safely: it will not be shown again.</strong> It works until{' '}
      <DateTime value={user.oneTimePasswordExpiresAt} />, only to sign in once and choose their own password.
    </SecretBox>
  )
}

function ProjectsDialog({ user, projects, onCancel, onSaved }: { user: User; projects: string[]; onCancel: () => void; onSaved: (user: User) => void }) {
  const [chosen, setChosen] = useState<string[]>(user.projects)
  const cancel = useRef<HTMLButtonElement>(null)
  const form = useSubmit(async () => {
    if (chosen.length === 0) throw new Error('An owner needs at least one project: tick one, or disable the user instead.')
    onSaved(await api.put('/users/{userId}/projects', { path: { userId: user.id }, body: { projects: chosen } }))
  })
  return (
    <Modal title={`Projects of ${user.email}`} initialFocus={cancel} onCancel={onCancel}>
      <form onSubmit={form.submit}>
        <p class="dialog-body">They see and manage only these projects, from their next request.</p>
        <ProjectChoices idPrefix={`projects-of-${user.id}`} projects={projects} chosen={chosen} setChosen={setChosen} />
        <ErrorMessage error={form.error} />
        <div class="dialog-actions">
          <button type="button" ref={cancel} onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" class="button-primary" disabled={form.busy}>
            Save projects
          </button>
        </div>
      </form>
    </Modal>
  )
}
