import { useEffect, useState } from 'preact/hooks'
import { api, messageOf, type SiteSettings } from './api'
import { problemFor, useFieldSubmit } from './changes'
import { CopyButton, ErrorMessage, Loading, StatusMessage } from './components'
import { CheckboxField, TextAreaField, TextField } from './form-fields'
import { useReadOnly } from './read-only'

type Draft = Record<'displayName' | 'logoUrl' | 'primaryColor' | 'about' | 'contactEmail' | 'contactPhone', string>

const EMPTY: Draft = { displayName: '', logoUrl: '', primaryColor: '', about: '', contactEmail: '', contactPhone: '' }

function draftOf(settings: SiteSettings): Draft {
  return Object.fromEntries(Object.keys(EMPTY).map((field) => [field, settings[field as keyof Draft] ?? ''])) as Draft
}

/**
 * The project's adoption site: published or not, its branding, and the snippet that embeds its
 * listing in another site. `address` is the project's own (`https://<slug>.<PLATFORM_DOMAIN>`)
 * when the service has a platform domain; otherwise the site is at `/sites/<slug>/` here.
 */
export function Site({ slug, address }: { slug: string; address: string | null }) {
  const readOnly = useReadOnly()
  const [settings, setSettings] = useState<SiteSettings | null>(null)
  const [published, setPublished] = useState(true)
  const [draft, setDraft] = useState<Draft>(EMPTY)
  const [error, setError] = useState<string | null>(null)
  const [status, setStatus] = useState<string | null>(null)
  const load = (loaded: SiteSettings) => {
    setSettings(loaded)
    setPublished(loaded.published)
    setDraft(draftOf(loaded))
  }
  useEffect(() => {
    setSettings(null)
    api.get('/projects/{slug}/site', { path: { slug } }).then(load, (caught: unknown) => setError(messageOf(caught)))
  }, [slug])
  const { form, problem } = useFieldSubmit(async () => {
    setStatus(null)
    // Every field is sent: an empty one is removed (null), as a merge patch says it.
    const body = { published, ...Object.fromEntries(Object.entries(draft).map(([field, value]) => [field, value.trim() === '' ? null : value.trim()])) }
    const saved = await api.patch('/projects/{slug}/site', { path: { slug }, body })
    load(saved)
    setStatus(saved.published ? 'The site is saved and published.' : 'The site is saved; it is not published.')
  })
  const site = address ? `${address}/` : `${window.location.origin}/sites/${slug}/`
  const embed = `<iframe src="${site}embed" title="Animals for adoption" width="100%" height="900" style="border:0" loading="lazy"></iframe>`
  const field = (name: keyof Draft) => ({ value: draft[name], onChange: (value: string) => setDraft({ ...draft, [name]: value }), error: problemFor(problem, name) })

  return (
    <>
      <h2 tabIndex={-1}>Adoption site</h2>
      <p>
        The project's animals as a website at <a href={site}>{site}</a>: the available animals with their photos, a search, each animal's page and an enquiry form that places an
        adoption order (shown under Orders, with who asked).
      </p>
      <ErrorMessage error={error} />
      {settings === null && !error && <Loading what="the site settings" />}
      {settings && (
        <section class="card" aria-labelledby="site-settings">
          <h3 id="site-settings">Settings</h3>
          <form class="form" onSubmit={form.submit}>
            {/* A viewer sees the settings, and cannot change them. */}
            <fieldset class="plain" disabled={readOnly}>
              <CheckboxField id="site-published" label="Published" checked={published} onChange={setPublished} />
              <p class="help">Unticked, the project's addresses serve the API only: the site's pages answer 404.</p>
              <TextField id="site-name" label="Shelter name" help={`Shown in the header and titles; empty: ${slug}`} input={{ maxLength: 100 }} {...field('displayName')} />
              <TextField id="site-logo" label="Logo address" help="An https address of an image, shown at most 48 px high" input={{ type: 'url', maxLength: 500 }} {...field('logoUrl')} />
              <TextField id="site-color" label="Colour" help="The header's and buttons' colour, #rrggbb, e.g. #1f5f8b" input={{ maxLength: 7 }} {...field('primaryColor')} />
              <TextAreaField id="site-about" label="About the shelter" maxLength={5000} {...field('about')} />
              <TextField id="site-email" label="Contact email" input={{ maxLength: 254 }} {...field('contactEmail')} />
              <TextField id="site-phone" label="Contact phone" input={{ maxLength: 40 }} {...field('contactPhone')} />
            </fieldset>
            {!readOnly && (
              <button type="submit" class="button-primary" disabled={form.busy}>
                Save the site
              </button>
            )}
          </form>
          <ErrorMessage error={form.error} />
          <StatusMessage text={status} />
        </section>
      )}
      <section class="card" aria-labelledby="site-embed">
        <h3 id="site-embed">Embed the listing in another site</h3>
        <p>Paste this where the animals should appear: the listing without the site's header, each animal opening in a new tab.</p>
        <pre class="snippet">
          <code id="site-embed-code">{embed}</code>
        </pre>
        <CopyButton value={embed} label="Copy the snippet" />
      </section>
    </>
  )
}
