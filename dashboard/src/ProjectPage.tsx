import { useEffect, useState } from 'preact/hooks'
import { API_PREFIX, api, messageOf, type Project, type Session } from './api'
import { ErrorMessage, Loading } from './components'
import { AnimalEditor } from './animal-editor/AnimalEditor'
import { Animals } from './Animals'
import { Categories } from './Categories'
import { Domains } from './Domains'
import { Keys } from './Keys'
import { Locations } from './Locations'
import { Orders } from './Orders'
import { Site } from './Site'
import { hostOf, Limits } from './Projects'
import { type AnimalRef, Link, projectPath, type Tab, TABS } from './router'
import { UsagePage } from './Usage'
import { Webhooks } from './Webhooks'
import { ReadOnly } from './read-only'

/** A project: its summary, its sub-navigation, and the page of the tab chosen. */
export function ProjectPage({ slug, tab, search, animal, features, readOnly = false, operator = false }: { slug: string; tab: Tab; search: string; animal?: AnimalRef; features: Session['features']; readOnly?: boolean; operator?: boolean }) {
  const [project, setProject] = useState<Project | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    setProject(null)
    setError(null)
    api.get('/projects/{slug}', { path: { slug } }).then(setProject, (caught: unknown) => setError(messageOf(caught)))
  }, [slug])

  return (
    <>
      <p class="breadcrumb">
        <Link to="/">Projects</Link> <span aria-hidden="true">›</span> {slug}
      </p>
      <h1 tabIndex={-1}>{slug}</h1>
      {project && (
        <p class="project-summary">
          Plan <strong>{project.plan}</strong>: <Limits project={project} />.
          {project.address && (
            <>
              {' '}
              Published at <code>{hostOf(project.address)}</code>.
            </>
          )}
          {!readOnly && (
            <>
              {' '}
              {/* The archive is made as it downloads; its name comes with it (Content-Disposition). Not for viewers: it holds the members' emails. */}
              <a class="button-link" href={`${API_PREFIX}/projects/${encodeURIComponent(slug)}/export`} download>
                Download export
              </a>
            </>
          )}
        </p>
      )}
      <nav aria-label="Project">
        <ul class="tabs">
          {TABS.map(({ tab: t, label }) => (
            <li key={t}>
              <Link to={projectPath(slug, t)} aria-current={t === tab ? 'page' : undefined}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <ErrorMessage error={error} />
      {!project && !error && <Loading what="the project" />}
      {project && readOnly && (
        <p class="message message-info" role="note">
          Your role is viewer: you can see this project but not change it. Ask an owner or an operator for a change.
        </p>
      )}
      {project && (
        <ReadOnly.Provider value={readOnly}>
          <div class="tab-panel">
            {tab === 'keys' && <Keys slug={slug} />}
            {tab === 'animals' && (animal === undefined ? <Animals slug={slug} search={search} /> : <AnimalEditor slug={slug} animal={animal} />)}
            {tab === 'locations' && <Locations slug={slug} />}
            {tab === 'categories' && <Categories slug={slug} />}
            {tab === 'orders' && <Orders slug={slug} search={search} />}
            {tab === 'site' && <Site slug={slug} address={project?.address ?? null} />}
            {tab === 'usage' && <UsagePage slug={slug} />}
            {tab === 'domains' && <Domains project={project} enabled={features.customDomains} />}
            {tab === 'webhooks' && <Webhooks slug={slug} configured={features.webhooks} project={project} onProject={setProject} operator={operator} networksConfigured={features.webhookPrivateNetworks} />}
          </div>
        </ReadOnly.Provider>
      )}
    </>
  )
}
