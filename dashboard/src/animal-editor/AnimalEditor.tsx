import { useEffect, useState } from 'preact/hooks'
import { api, messageOf, type Pet } from '../api'
import { problemFor, useFieldSubmit } from '../changes'
import { ErrorMessage, Loading, StatusMessage } from '../components'
import { PetStatusBadge } from '../Animals'
import { useCategories, useLocations } from '../project-choices'
import { type AnimalRef, animalPath, Link, navigate, projectPath } from '../router'
import { changesOf, type Draft, draftOf, emptyDraft, newPetOf } from './draft'
import { PhotosSection } from './photos'
import { AboutSection, BreedSection, CareSection, DescriptionSection, FeeSection, GoodWithSection, LooksSection, ShelterSection } from './sections'
import { useReadOnly } from '../read-only'

/**
 * An animal's whole profile as a form, at its own address (`…/animals/new`, `…/animals/{id}`).
 * Adding sends the profile; saving an animal sends a JSON Merge Patch of only what changed
 * (`null` for what was emptied). The API's errors are shown under the form, and on the field
 * they name. An animal once added has its photos under the form (see PhotosSection).
 */
export function AnimalEditor({ slug, animal }: { slug: string; animal: AnimalRef }) {
  const readOnly = useReadOnly()
  const categories = useCategories(slug)
  const locations = useLocations(slug)
  const [pet, setPet] = useState<Pet | null>(null)
  const [draft, setDraft] = useState<Draft | null>(animal === 'new' ? emptyDraft() : null)
  const [loadError, setLoadError] = useState<string | null>(null)
  const [status, setStatus] = useState<string | null>(null)

  useEffect(() => {
    if (animal === 'new' || pet?.id === animal) return
    let current = true
    setDraft(null)
    api.get('/projects/{slug}/animals/{petId}', { path: { slug, petId: animal } }).then(
      (read) => {
        if (!current) return
        setPet(read)
        setDraft(draftOf(read))
      },
      (caught: unknown) => current && setLoadError(messageOf(caught)),
    )
    return () => {
      current = false
    }
  }, [slug, animal])

  const { form, problem } = useFieldSubmit(
    async () => {
      if (!draft) return
      setStatus(null)
      if (pet === null) {
        const added = await api.post('/projects/{slug}/animals', { path: { slug }, body: newPetOf(draft) })
        setPet(added)
        setDraft(draftOf(added))
        setStatus(`${added.name} is added (id ${added.id}).`)
        navigate(animalPath(slug, added.id), { replace: true })
        return
      }
      const changes = changesOf(pet, draft)
      if (Object.keys(changes).length === 0) {
        setStatus('Nothing to save: no field changed.')
        return
      }
      const saved = await api.patch('/projects/{slug}/animals/{petId}', { path: { slug, petId: pet.id }, body: changes })
      setPet(saved)
      setDraft(draftOf(saved))
      setStatus(`${saved.name} is saved (${Object.keys(changes).join(', ')}).`)
    },
    { external_id_taken: 'externalId' },
  )

  const back = (
    <p class="back">
      <Link to={projectPath(slug, 'animals')}>All animals</Link>
    </p>
  )
  if (loadError) {
    return (
      <>
        {back}
        <h2 tabIndex={-1}>Animal {animal}</h2>
        <ErrorMessage error={loadError} />
      </>
    )
  }
  const set = <K extends keyof Draft>(name: K, value: Draft[K]) => setDraft((current) => current && { ...current, [name]: value })
  const errorOf = (field: string) => problemFor(problem, field)
  const sections = draft && { draft, set, errorOf }
  return (
    <>
      {back}
      <h2 tabIndex={-1}>{pet ? `Profile of ${pet.name}` : animal === 'new' ? 'New animal' : `Animal ${animal}`}</h2>
      {pet && (
        <p>
          Id {pet.id}, <PetStatusBadge status={pet.status} />: the status follows the animal's adoption orders (the <Link to={projectPath(slug, 'orders')}>Orders tab</Link>).
        </p>
      )}
      <ErrorMessage error={categories.error ?? locations.error} />
      {!sections && <Loading what="the animal" />}
      {sections && (
        <form class="form animal-editor" aria-label={pet ? `Profile of ${pet.name}` : 'New animal'} onSubmit={form.submit}>
          {/* A viewer reads the profile in its fields, and cannot change it. */}
          <fieldset class="plain" disabled={readOnly}>
            <AboutSection {...sections} categories={categories.items} adding={pet === null} />
            <BreedSection {...sections} slug={slug} />
            <LooksSection {...sections} />
            <DescriptionSection {...sections} />
            <GoodWithSection {...sections} />
            <CareSection {...sections} />
            <FeeSection {...sections} />
            <ShelterSection {...sections} locations={locations.items} savedVideos={pet?.videoUrls ?? []} />
          </fieldset>
          <div class="editor-actions">
            {!readOnly && (
              <button type="submit" class="button-primary" disabled={form.busy}>
                {pet ? 'Save changes' : 'Add animal'}
              </button>
            )}
            <Link to={projectPath(slug, 'animals')}>Back to the list</Link>
          </div>
          <ErrorMessage error={form.error} />
          <StatusMessage text={status} />
        </form>
      )}
      {/* Photos are sent as they are added or changed, not with the profile: apart from its form. */}
      {pet && <PhotosSection key={pet.id} slug={slug} pet={pet} />}
      {draft && !pet && <p class="help">Photos can be added once the animal is added.</p>}
    </>
  )
}
