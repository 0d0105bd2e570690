import { useEffect, useState } from 'preact/hooks'
import { api, messageOf, type Plan, PLANS, type Project, type RequestBody, type Session } from './api'
import { ErrorMessage, Fact, formatNumber, Hidden, Loading, MomentFact, StatusMessage } from './components'
import { FormDialog, useConfirm, useSubmit } from './dialogs'
import { SelectField } from './form-fields'
import { Link, projectPath, TABS } from './router'

export function Projects({ session }: { session: Session }) {
  const [projects, setProjects] = useState<Project[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [status, setStatus] = useState<string | null>(null)
  const operator = session.user.role === 'operator'

  useEffect(() => {
    api.get('/projects').then(setProjects, (caught: unknown) => setError(messageOf(caught)))
  }, [])

  const replace = (project: Project) => setProjects((list) => (list ?? []).map((p) => (p.slug === project.slug ? project : p)))
  const remove = (slug: string) => setProjects((list) => (list ?? []).filter((p) => p.slug !== slug))

  return (
    <>
      <h1 tabIndex={-1}>Projects</h1>
      <StatusMessage text={status} />
      <ErrorMessage error={error} />
      {projects === null && !error && <Loading what="projects" />}
      {projects?.length === 0 && (
        <p>{operator ? 'No projects yet: create the first one below.' : 'You are not a member of any project yet: ask an operator of this service to add you to one.'}</p>
      )}
      {projects && projects.length > 0 && (
        <ul class="cards" aria-label="Projects">
          {projects.map((project) => (
            <li key={project.slug}>
              <ProjectCard
                project={project}
                operator={operator}
                onChanged={(p, message) => (replace(p), setStatus(message))}
                onDeleted={(slug, message) => (remove(slug), setStatus(message))}
              />
            </li>
          ))}
        </ul>
      )}
      {operator && projects && (
        <NewProject
          onCreated={(project) => {
            setProjects((list) => [...(list ?? []), project])
            setStatus(`Project ${project.slug} created on plan ${project.plan}.`)
          }}
        />
      )}
    </>
  )
}

export function Limits({ project }: { project: Project }) {
  return (
    <>
      {formatNumber(project.limits.perMinute)} requests per minute, {formatNumber(project.limits.perDay)} per day
    </>
  )
}

/**
 * The host a project is published at, without a scheme: whether it answers over HTTPS depends on
 * what the operator runs in front of the service (it gets certificates only for custom domains).
 */
export function hostOf(address: string): string {
  try {
    return new URL(address).host
  } catch {
    return address
  }
}

function ProjectCard({
  project,
  operator,
  onChanged,
  onDeleted,
}: {
  project: Project
  operator: boolean
  onChanged: (project: Project, message: string) => void
  onDeleted: (slug: string, message: string) => void
}) {
  const headingId = `project-${project.slug}`
  return (
    <article class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <Link to={projectPath(project.slug)}>{project.slug}</Link>
      </h2>
      <dl class="facts">
        <Fact term="Plan">{project.plan}</Fact>
        <Fact term="Limits">
          <Limits project={project} />
        </Fact>
        <Fact term="Address">{project.address ? <code>{hostOf(project.address)}</code> : 'No platform domain is configured'}</Fact>
        <MomentFact term="Created" value={project.createdAt} />
      </dl>
      <nav aria-label={`Project ${project.slug}`}>
        <ul class="subnav">
          {TABS.map(({ tab, label }) => (
            <li key={tab}>
              <Link to={projectPath(project.slug, tab)}>
                {label}
                <Hidden> of {project.slug}</Hidden>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {operator && <PlanForm project={project} onChanged={onChanged} />}
      {operator && <DeleteProject slug={project.slug} onDeleted={onDeleted} />}
    </article>
  )
}

/** Deletes the project with everything it holds, once the slug is typed in the confirmation. */
function DeleteProject({ slug, onDeleted }: { slug: string; onDeleted: (slug: string, message: string) => void }) {
  const [open, setOpen] = useState(false)
  const [typed, setTyped] = useState('')
  const form = useSubmit(async () => {
    const deleted = await api.delete('/projects/{slug}', { path: { slug } })
    setOpen(false)
    const files = deleted.photoFiles === 1 ? '1 photo file' : `${formatNumber(deleted.photoFiles)} photo files`
    onDeleted(slug, `Project ${slug} deleted, with its keys, animals, orders, webhooks, domains and ${files}.`)
  })
  const close = () => (setOpen(false), setTyped(''))
  return (
    <>
      <button type="button" class="button-danger" onClick={() => setOpen(true)}>
        Delete project<Hidden> {slug}</Hidden>
      </button>
      {open && (
        <FormDialog title={`Delete project ${slug}?`} submitLabel="Delete project" form={{ ...form, busy: form.busy || typed.trim() !== slug }} onCancel={close}>
          <p>
            This deletes the project with its API keys (they stop working at once), animals and their photos, orders, locations, categories, webhook endpoints, domains,
            site and usage. It cannot be undone.
          </p>
          <div class="field">
            <label for={`delete-${slug}`}>Type {slug} to confirm</label>
            <input id={`delete-${slug}`} autoComplete="off" spellcheck={false} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
          </div>
        </FormDialog>
      )}
    </>
  )
}

/** A plan picked in a form and, for enterprise, its own limits as typed. */
interface PlanChoice {
  plan: Plan
  perMinute: string
  perDay: string
}

/** Plan and, for enterprise, its own limits. */
function PlanFields({ idPrefix, planLabel, choice, setChoice }: { idPrefix: string; planLabel: string; choice: PlanChoice; setChoice: (choice: PlanChoice) => void }) {
  return (
    <>
      <SelectField
        id={`${idPrefix}-plan`}
        label={planLabel}
        value={choice.plan}
        options={PLANS.map((plan) => ({ value: plan, text: plan }))}
        onChange={(plan) => setChoice({ ...choice, plan })}
      />
      {choice.plan === 'enterprise' && (
        <>
          <div class="field">
            <label for={`${idPrefix}-per-minute`}>Requests per minute</label>
            <input id={`${idPrefix}-per-minute`} type="number" min={1} step={1} required value={choice.perMinute} onInput={(e) => setChoice({ ...choice, perMinute: e.currentTarget.value })} />
          </div>
          <div class="field">
            <label for={`${idPrefix}-per-day`}>Requests per day</label>
            <input id={`${idPrefix}-per-day`} type="number" min={1} step={1} required value={choice.perDay} onInput={(e) => setChoice({ ...choice, perDay: e.currentTarget.value })} />
          </div>
        </>
      )}
    </>
  )
}

function planBody({ plan, perMinute, perDay }: PlanChoice): RequestBody<'setProjectPlan'> {
  return plan === 'enterprise' ? { plan, perMinute: Number(perMinute), perDay: Number(perDay) } : { plan }
}

function PlanForm({ project, onChanged }: { project: Project; onChanged: (project: Project, message: string) => void }) {
  const [choice, setChoice] = useState<PlanChoice>({ plan: project.plan, perMinute: String(project.limits.perMinute), perDay: String(project.limits.perDay) })
  const { plan, perMinute, perDay } = choice
  const { dialog, ask } = useConfirm()
  const unchanged = plan === project.plan && (plan !== 'enterprise' || (Number(perMinute) === project.limits.perMinute && Number(perDay) === project.limits.perDay))

  const { busy, error, run: change } = useSubmit(async () => {
    const updated = await api.put('/projects/{slug}/plan', { path: { slug: project.slug }, body: planBody(choice) })
    onChanged(updated, `Project ${updated.slug} is now on plan ${updated.plan}.`)
  })

  const submit = (event: Event) => {
    event.preventDefault()
    ask(
      {
        title: `Change the plan of ${project.slug}?`,
        body: (
          <p>
            From <strong>{project.plan}</strong> to <strong>{plan}</strong>
            {plan === 'enterprise' ? ` (${formatNumber(Number(perMinute))} per minute, ${formatNumber(Number(perDay))} per day)` : ''}. The new limits apply from the next
            request{plan === 'free' ? '; custom domains need plan pro or above' : ''}.
          </p>
        ),
        confirmLabel: 'Change plan',
      },
      () => void change(),
    )
  }

  return (
    <form class="form inline-form" onSubmit={submit}>
      <PlanFields idPrefix={`plan-${project.slug}`} planLabel={`Plan of ${project.slug}`} choice={choice} setChoice={setChoice} />
      <button type="submit" disabled={busy || unchanged}>
        Change plan<Hidden> of {project.slug}</Hidden>
      </button>
      <ErrorMessage error={error} />
      {dialog}
    </form>
  )
}

function NewProject({ onCreated }: { onCreated: (project: Project) => void }) {
  const [slug, setSlug] = useState('')
  const [choice, setChoice] = useState<PlanChoice>({ plan: 'free', perMinute: '', perDay: '' })
  const { busy, error, submit } = useSubmit(async () => {
    const body: RequestBody<'createProject'> = { slug: slug.trim(), ...planBody(choice) }
    const project = await api.post('/projects', { body })
    setSlug('')
    onCreated(project)
  })

  return (
    <section aria-labelledby="new-project" class="card">
      <h2 id="new-project">New project</h2>
      <form class="form inline-form" onSubmit={submit}>
        <div class="field">
          <label for="new-project-slug">Slug</label>
          <input
            id="new-project-slug"
            required
            maxLength={63}
            aria-describedby="new-project-slug-help"
            value={slug}
            onInput={(e) => setSlug(e.currentTarget.value)}
          />
          <p id="new-project-slug-help" class="help">
            Lowercase letters, digits and hyphens; it becomes part of the project's address.
          </p>
        </div>
        <PlanFields idPrefix="new-project" planLabel="Plan" choice={choice} setChoice={setChoice} />
        <button type="submit" class="button-primary" disabled={busy}>
          Create project
        </button>
        <ErrorMessage error={error} />
      </form>
    </section>
  )
}
