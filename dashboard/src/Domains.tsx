import { useEffect, useState } from 'preact/hooks'
import type { ComponentChildren } from 'preact'
import { api, ApiError, type Domain, type DomainSettings, messageOf, PLANS, type Project } from './api'
import { Badge, type BadgeTone, ColumnHeads, CopyButton, DateTime, ErrorMessage, Fact, Hidden, Loading, MomentFact, StatusMessage, type StatusTone, TableWrap } from './components'
import { useReadOnly } from './read-only'
import { FormCard, useConfirm, useSubmit } from './dialogs'
import { SelectField } from './form-fields'
import { Link } from './router'

const DOMAIN_STATE: Record<Domain['status']['state'], { label: string; tone: BadgeTone }> = {
  pending: { label: 'Pending verification', tone: 'wait' },
  verified: { label: 'Verified', tone: 'good' },
  failed: { label: 'Verification failed', tone: 'bad' },
}

const CERTIFICATE_STATE: Record<Domain['certificate']['state'], { label: string; tone: BadgeTone }> = {
  pending: { label: 'Pending', tone: 'wait' },
  issuing: { label: 'Being issued', tone: 'wait' },
  issued: { label: 'Issued', tone: 'good' },
  failed: { label: 'Failed', tone: 'bad' },
  renewing: { label: 'Being renewed', tone: 'wait' },
}

/** Custom domains need plan pro or above: the plans listed from pro on. */
const PLANS_WITH_DOMAINS = new Set(PLANS.slice(PLANS.indexOf('pro')))

/**
 * Whether the check's reason names a conflicting record (see checkDomainDns): only then is the
 * hint about deleting it true. Other failures (no record, a CNAME elsewhere, a DNS error) say
 * what to do in the reason itself.
 */
function conflictingRecord(domain: Domain): boolean {
  return domain.status.state === 'failed' && /\bconflicting record\b/i.test(domain.status.reason ?? '')
}

/** Custom domains, or, when the operator has not enabled them (no PLATFORM_DOMAIN), why there are none to add. */
export function Domains({ project, enabled }: { project: Project; enabled: boolean }) {
  if (!enabled) {
    return (
      <>
        <h2 tabIndex={-1}>Domains</h2>
        <aside class="banner" aria-label="Custom domains are not enabled">
          <p>
            <strong>Custom domains are not enabled on this service.</strong> Projects are published at their own subdomains, and can add their own domains, once
            an operator sets <code>PLATFORM_DOMAIN</code> (and <code>PLATFORM_DNS_TARGET</code>, the name DNS records point at). See the deployment guide.
          </p>
        </aside>
      </>
    )
  }
  return <DomainsEnabled project={project} />
}

function DomainsEnabled({ project }: { project: Project }) {
  const readOnly = useReadOnly()
  const slug = project.slug
  const [settings, setSettings] = useState<DomainSettings | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [status, setStatus] = useState<string | null>(null)
  const [tone, setTone] = useState<StatusTone>('success')
  const { dialog, ask } = useConfirm()

  useEffect(() => {
    setSettings(null)
    setError(null)
    api.get('/projects/{slug}/domains', { path: { slug } }).then(setSettings, (caught: unknown) => setError(messageOf(caught)))
  }, [slug])

  /** Runs a change, shows its outcome, and keeps the settings it answers (or reloads them). */
  const run = async (change: () => Promise<DomainSettings | void>, done: (settings: DomainSettings) => string) => {
    setError(null)
    setStatus(null)
    try {
      const next = (await change()) ?? (await api.get('/projects/{slug}/domains', { path: { slug } }))
      setSettings(next)
      setTone('success')
      setStatus(done(next))
    } catch (caught) {
      setError(messageOf(caught))
    }
  }

  const replaceDomain = (domain: Domain) =>
    setSettings((current) => current && { ...current, domains: current.domains.map((d) => (d.name === domain.name ? domain : d)) })

  const verify = async (domain: Domain) => {
    setError(null)
    setStatus(null)
    try {
      const checked = await api.post('/projects/{slug}/domains/{name}/verify', { path: { slug, name: domain.name } })
      replaceDomain(checked)
      setTone(checked.status.state === 'verified' ? 'success' : 'warning')
      setStatus(
        checked.status.state === 'verified'
          ? `${checked.unicodeName} is verified: it is served from the next request${settings?.https ? ', and its certificate is requested' : ', over plain HTTP (this service has no certificates configured)'}.`
          : `${checked.unicodeName} is not verified yet: ${checked.status.reason ?? 'see its state below.'}`,
      )
    } catch (caught) {
      setError(messageOf(caught))
    }
  }

  const remove = (domain: Domain) =>
    ask(
      {
        title: `Remove ${domain.unicodeName}?`,
        body: (
          <p>
            <strong>Traffic to {domain.unicodeName} stops immediately</strong>: from the next request, on every instance, it is no longer served. Its certificate
            and any redirect to or from it are deleted. You can add it again later, and verify it again.
          </p>
        ),
        confirmLabel: 'Remove domain',
        danger: true,
      },
      () =>
        void run(
          () => api.delete('/projects/{slug}/domains/{name}', { path: { slug, name: domain.name } }),
          () => `${domain.unicodeName} is removed: it is no longer served.`,
        ),
    )

  const canAdd = PLANS_WITH_DOMAINS.has(project.plan)

  return (
    <>
      <h2 tabIndex={-1}>Domains</h2>
      <aside class="banner" aria-label="About custom domains">
        <p>
          A custom domain needs plan <strong>pro or above</strong>
          {canAdd ? '.' : `; this project is on plan ${project.plan}, so an operator must change its plan first.`} After you create the DNS record shown for it,
          DNS changes can take <strong>up to 48 hours</strong> to propagate: pending domains are checked again in the background, and you can Verify at any
          time.
        </p>
        {settings?.platformHost && (
          <p>
            Without a custom domain, the project is published at <code>{settings.platformHost}</code>.
          </p>
        )}
        {settings && !settings.https && (
          <p>
            <strong>HTTPS is not configured on this service</strong>: custom domains are served over plain HTTP only. An operator enables it with <code>CERTIFICATE_ENCRYPTION_KEY</code> and <code>HTTPS_PORT</code>.
          </p>
        )}
      </aside>
      <StatusMessage text={status} tone={tone} />
      <ErrorMessage error={error} />
      {!readOnly && (
        <AddDomain
          project={project}
          onAdded={(domain) =>
            void run(
              async () => undefined,
              () => `${domain.unicodeName} is added. Create its DNS record at your DNS provider, then Verify.`,
            )
          }
        />
      )}
      {!settings && !error && <Loading what="domains" />}
      {settings && settings.domains.length === 0 && <p>This project has no custom domain yet.</p>}
      {settings?.domains.map((domain) => (
        <DomainCard key={domain.name} domain={domain} https={settings.https} onVerify={() => verify(domain)} onRemove={() => remove(domain)} />
      ))}
      {settings && settings.domains.length > 0 && <PrimaryAndRedirects settings={settings} run={run} slug={slug} />}
      {dialog}
    </>
  )
}

/**
 * What a refusal means for someone in this page. The API's `plan_required` message speaks to API
 * and CLI users (it names a command); here the answer is where, in the dashboard, the plan changes.
 */
function refusal(caught: unknown, project: Project): ComponentChildren {
  if (caught instanceof ApiError && caught.code === 'plan_required') {
    return (
      <>
        Custom domains are available on plan pro and above; this project is on plan {project.plan}. An operator can change its plan on the{' '}
        <Link to="/">Projects</Link> page.
      </>
    )
  }
  return messageOf(caught)
}

function AddDomain({ project, onAdded }: { project: Project; onAdded: (domain: Domain) => void }) {
  const slug = project.slug
  const [name, setName] = useState('')
  const form = useSubmit(
    async () => {
      const domain = await api.post('/projects/{slug}/domains', { path: { slug }, body: { name: name.trim() } })
      setName('')
      onAdded(domain)
    },
    (caught) => refusal(caught, project),
  )
  return (
    <FormCard id="add-domain" title="Add a domain" submitLabel="Add domain" form={form}>
      <div class="field">
        <label for="add-domain-name">Domain name</label>
        <input
          id="add-domain-name"
          required
          maxLength={300}
          autoComplete="off"
          spellcheck={false}
          placeholder="shop.example.com"
          aria-describedby="add-domain-help"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <p id="add-domain-help" class="help">
          A subdomain (shop.example.com) gets a CNAME record; an apex domain (example.com) needs ALIAS or ANAME, which not every DNS provider supports.
        </p>
      </div>
    </FormCard>
  )
}

function DomainCard({ domain, https, onVerify, onRemove }: { domain: Domain; https: boolean; onVerify: () => Promise<void>; onRemove: () => void }) {
  const readOnly = useReadOnly()
  // onVerify says itself how the check went: here only the button waits.
  const { busy, run: verify } = useSubmit(onVerify)
  const id = `domain-${domain.name}`
  const record = domain.dnsRecord
  const state = DOMAIN_STATE[domain.status.state]
  // Without HTTPS configured, "pending" would wait for nothing: say so instead.
  const unconfigured = !https && domain.certificate.state === 'pending'
  const certificate = unconfigured ? { label: 'Not configured', tone: 'neutral' as const } : CERTIFICATE_STATE[domain.certificate.state]
  const verified = domain.status.state === 'verified'

  return (
    <section class="card domain" aria-labelledby={id}>
      <div class="card-heading">
        <h3 id={id}>{domain.unicodeName}</h3>
        {domain.primary && <Badge tone="good">Primary</Badge>}
        {domain.redirect && (
          <Badge tone="neutral">
            Redirects to {domain.redirect.to} ({domain.redirect.status})
          </Badge>
        )}
        {domain.apex && <Badge tone="neutral">Apex domain</Badge>}
      </div>
      {domain.name !== domain.unicodeName && (
        <p class="muted">
          ASCII form: <code>{domain.name}</code>
        </p>
      )}

      <h4>DNS record to create</h4>
      <TableWrap label={`DNS record for ${domain.unicodeName}`}>
        <table class="dns">
          <caption class="visually-hidden">DNS record for {domain.unicodeName}</caption>
          <ColumnHeads names={['Type', 'Name', 'Value', 'TTL']} />
          <tbody>
            <tr>
              <td>
                <code>{record.type}</code>
                {record.type === 'ALIAS' && <span class="muted"> (or ANAME)</span>}
              </td>
              <td>
                <code>{record.name}</code> <CopyButton value={record.name} what={`record name for ${domain.unicodeName}`} />
              </td>
              <td>
                <code>{record.value}</code> <CopyButton value={record.value} what={`record value for ${domain.unicodeName}`} />
              </td>
              <td>{record.ttl}</td>
            </tr>
          </tbody>
        </table>
      </TableWrap>
      <p class="help">{record.note}</p>

      <div class="states">
        <div class="state">
          <h4>Domain</h4>
          <p>
            <Badge tone={state.tone}>{state.label}</Badge>
          </p>
          {domain.status.reason && <p class="reason">{domain.status.reason}</p>}
          {conflictingRecord(domain) && (
            <p class="hint">
              {domain.apex
                ? 'An A or AAAA record that the platform target does not have makes the addresses differ: delete it (or use an ALIAS/ANAME record).'
                : 'A record of another type for the same name (A or AAAA) blocks the CNAME: delete it.'}
            </p>
          )}
          {domain.status.state === 'failed' && <p class="hint">Changed records can take up to 48 hours to be seen everywhere; then Verify again.</p>}
          <dl class="facts compact">
            <MomentFact term="Last checked" value={domain.status.checkedAt} empty="not yet" />
            <MomentFact term="Next check" value={domain.status.nextCheckAt} empty={verified ? 'none needed' : 'none scheduled: use Verify'} />
            <MomentFact term="Verified" value={domain.status.verifiedAt} />
          </dl>
        </div>
        <div class="state">
          <h4>Certificate</h4>
          <p>
            <Badge tone={certificate.tone}>{certificate.label}</Badge>
          </p>
          {unconfigured ? (
            <p class="reason">This service does not request certificates: the domain is served over plain HTTP only.</p>
          ) : (
            domain.certificate.reason && <p class="reason">{domain.certificate.reason}</p>
          )}
          {https && verified && domain.certificate.state !== 'issued' && (
            <p class="hint">
              A certificate is usually issued within a couple of minutes. If there is none after 30 minutes: check that the domain still verifies, that CAA
              records do not block the certificate authority, then Re-verify.
            </p>
          )}
          {https && !verified && <p class="hint">A certificate is requested once the domain is verified.</p>}
          <dl class="facts compact">
            {domain.certificate.notAfter && (
              <Fact term="Valid">
                <DateTime value={domain.certificate.notBefore} /> to <DateTime value={domain.certificate.notAfter} />
              </Fact>
            )}
            <MomentFact term="Renewal" value={domain.certificate.renewAt} />
            <MomentFact term="Last attempt" value={domain.certificate.checkedAt} empty="none yet" />
            <MomentFact term="Next attempt" value={domain.certificate.nextCheckAt} />
          </dl>
        </div>
      </div>

      {!readOnly && (
        <div class="actions">
          <button type="button" class={verified ? '' : 'button-primary'} onClick={() => void verify()} disabled={busy}>
            {busy ? 'Checking DNS…' : verified ? 'Re-verify' : 'Verify'}
            <Hidden> {domain.unicodeName}</Hidden>
          </button>
          <button type="button" class="button-danger" onClick={onRemove}>
            Remove<Hidden> {domain.unicodeName}</Hidden>
          </button>
        </div>
      )}
    </section>
  )
}

type Run = (change: () => Promise<DomainSettings | void>, done: (settings: DomainSettings) => string) => Promise<void>

function PrimaryAndRedirects({ settings, run, slug }: { settings: DomainSettings; run: Run; slug: string }) {
  const readOnly = useReadOnly()
  const servable = settings.domains.filter((d) => !d.redirect)
  const [primary, setPrimary] = useState(settings.primary ?? '')
  useEffect(() => setPrimary(settings.primary ?? ''), [settings.primary])
  const redirectable = settings.domains.filter((d) => !d.redirect && !d.primary)
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const fromValue = redirectable.some((d) => d.name === from) ? from : (redirectable[0]?.name ?? '')
  const targets = [...settings.domains.filter((d) => !d.redirect && d.name !== fromValue).map((d) => d.name), ...(settings.platformHost ? [settings.platformHost] : [])]
  const toValue = targets.includes(to) ? to : (targets[0] ?? '')

  const savePrimary = (event: Event) => {
    event.preventDefault()
    void run(
      () => api.put('/projects/{slug}/domains/primary', { path: { slug }, body: { name: primary || null } }),
      (next) => (next.primary ? `${next.primary} is the primary domain.` : 'The project has no primary domain.'),
    )
  }
  const addRedirect = (event: Event) => {
    event.preventDefault()
    void run(
      () => api.post('/projects/{slug}/domains/redirects', { path: { slug }, body: { from: fromValue, to: toValue, status: 301 } }),
      () => `${fromValue} now redirects to ${toValue} (301).`,
    )
  }

  return (
    <section class="card" aria-labelledby="primary-redirects">
      <h3 id="primary-redirects">Primary domain and redirects</h3>
      {readOnly ? (
        <p>Primary domain: {settings.primary ?? 'none'}</p>
      ) : (
        <form class="form inline-form" onSubmit={savePrimary}>
          <SelectField
            id="primary-domain"
            label="Primary domain"
            value={primary}
            options={[{ value: '', text: 'None' }, ...servable.map((d) => ({ value: d.name, text: d.unicodeName }))]}
            onChange={setPrimary}
          />
          <button type="submit" disabled={primary === (settings.primary ?? '')}>
            Save primary domain
          </button>
        </form>
      )}

      <h4>Redirects</h4>
      {settings.redirects.length === 0 ? (
        <p>No redirects: every domain serves the project.</p>
      ) : (
        <TableWrap label="Redirects">
          <table>
            <caption class="visually-hidden">Redirects of {settings.project}</caption>
            <ColumnHeads names={readOnly ? ['From', 'To', 'Status'] : ['From', 'To', 'Status', 'Actions']} />
            <tbody>
              {settings.redirects.map((redirect) => (
                <tr key={redirect.from}>
                  <th scope="row">{redirect.from}</th>
                  <td>{redirect.to}</td>
                  <td>{redirect.status}</td>
                  {!readOnly && (
                  <td>
                    <button
                      type="button"
                      class="button-small"
                      onClick={() =>
                        void run(
                          () => api.delete('/projects/{slug}/domains/redirects/{from}', { path: { slug, from: redirect.from } }),
                          () => `${redirect.from} no longer redirects: it serves the project again.`,
                        )
                      }
                    >
                      Remove redirect<Hidden> from {redirect.from}</Hidden>
                    </button>
                  </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {readOnly ? null : redirectable.length > 0 && targets.length > 0 ? (
        <form class="form inline-form" onSubmit={addRedirect}>
          <SelectField
            id="redirect-from"
            label="Redirect from"
            value={fromValue}
            options={redirectable.map((d) => ({ value: d.name, text: d.unicodeName }))}
            onChange={setFrom}
          />
          <SelectField id="redirect-to" label="To" value={toValue} options={targets.map((name) => ({ value: name, text: name }))} onChange={setTo} />
          <button type="submit">Add redirect</button>
        </form>
      ) : (
        <p class="help">A redirect needs a domain that is neither primary nor redirecting already, and another host to send it to.</p>
      )}
      <p class="help">Redirects answer 301 with the same path and query; the redirected domain must be verified to be served.</p>
    </section>
  )
}
