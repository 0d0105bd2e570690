/**
 * An animal's photos in its editor: add several at once (dropped on the drop zone, or chosen with
 * the file button), each upload with its progress and, when refused, the API's reason; the photos
 * as thumbnails in their order, the main one first and labelled, each moved earlier or later, made
 * the main photo, or removed after a confirmation. Each change is sent at once (not with "Save
 * changes"), and the list shown is the one the API answers.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { api, messageOf, type Pet, type Photo, upload } from '../api'
import { Badge, ErrorMessage, Hidden, StatusMessage } from '../components'
import { useActions, useConfirm } from '../dialogs'
import { useReadOnly } from '../read-only'

/** The most photos an animal can have (the API's 409 `limit_reached` past it). */
const MAX_PHOTOS = 20

/** The types the API takes; a phone's picker converts others (HEIC) to JPEG when they are not listed. */
const ACCEPTED = 'image/jpeg,image/png,image/webp,image/avif,image/gif'

interface Upload {
  key: number
  name: string
  sent: number
  total: number
  /** Waiting its turn; sending its bytes; sent, while the API makes its files; then added or refused. */
  state: 'waiting' | 'sending' | 'processing' | 'added' | 'failed'
  error: string | null
}

/** The file of a photo to show as a thumbnail: its narrowest. */
const thumbnailOf = (photo: Photo) => photo.variants.jpeg[0] ?? photo.variants.webp[0]

let uploadKeys = 0

/**
 * The uploads of the files chosen or dropped, one at a time in the order given, so that the
 * photos keep that order (the API puts each new one last). Each file is sent as the body, as its
 * bytes; after each, the list is read again from the API.
 */
function useUploads(slug: string, pet: Pet, setPhotos: (update: (photos: Photo[]) => Photo[]) => void) {
  const [uploads, setUploads] = useState<Upload[]>([])
  const [status, setStatus] = useState<string | null>(null)
  const queue = useRef(Promise.resolve())

  const change = (key: number, changes: Partial<Upload>) => setUploads((all) => all.map((item) => (item.key === key ? { ...item, ...changes } : item)))

  const add = (files: readonly File[]) => {
    if (files.length === 0) return
    const batch = files.map((file): Upload => ({ key: ++uploadKeys, name: file.name, sent: 0, total: file.size, state: 'waiting', error: null }))
    // Those finished go; those still under way stay.
    setUploads((all) => [...all.filter((item) => item.state !== 'added' && item.state !== 'failed'), ...batch])
    setStatus(files.length === 1 ? `Adding ${files[0]!.name}.` : `Adding ${files.length} photos.`)
    const results: boolean[] = []
    files.forEach((file, i) => {
      const { key } = batch[i]!
      queue.current = queue.current.then(async () => {
        change(key, { state: 'sending' })
        try {
          const photo = await upload('/projects/{slug}/animals/{petId}/photos', { path: { slug, petId: pet.id } }, file, (sent, total) => change(key, { sent, total, state: sent >= total ? 'processing' : 'sending' }))
          change(key, { state: 'added', sent: file.size, total: file.size })
          results.push(true)
          // The API puts it last; then the whole list as the API has it (another may have changed it meanwhile), when it can be read.
          setPhotos((photos) => [...photos.filter((p) => p.id !== photo.id), photo])
          const photos = await api.get('/projects/{slug}/animals/{petId}/photos', { path: { slug, petId: pet.id } }).catch(() => null)
          if (photos) setPhotos(() => photos)
        } catch (caught) {
          change(key, { state: 'failed', error: messageOf(caught) })
          results.push(false)
        }
        if (results.length === files.length) setStatus(summaryOf(results))
      })
    })
  }
  return { uploads, status, add }
}

function summaryOf(results: readonly boolean[]): string {
  const added = results.filter(Boolean).length
  const refused = results.length - added
  const photos = (n: number) => (n === 1 ? '1 photo' : `${n} photos`)
  if (refused === 0) return `${photos(added)} added.`
  return `${photos(added)} added, ${photos(refused)} not: see why beside ${refused === 1 ? 'its file' : 'each file'}.`
}

function UploadState({ item }: { item: Upload }) {
  switch (item.state) {
    case 'waiting':
      return <>Waiting</>
    case 'sending':
      return <>Sending, {item.total > 0 ? Math.floor((item.sent / item.total) * 100) : 0}%</>
    case 'processing':
      return <>Sent; making its sizes…</>
    case 'added':
      return <>Added</>
    case 'failed':
      return <span class="field-error">Not added: {item.error}</span>
  }
}

function UploadList({ uploads }: { uploads: readonly Upload[] }) {
  if (uploads.length === 0) return null
  return (
    <ul class="photo-uploads" aria-label="Uploads">
      {uploads.map((item) => (
        <li key={item.key} class={`photo-upload photo-upload-${item.state}`}>
          <span class="photo-upload-name" id={`photo-upload-${item.key}`}>
            {item.name}
          </span>
          <progress aria-labelledby={`photo-upload-${item.key}`} max={Math.max(item.total, 1)} value={item.state === 'added' ? Math.max(item.total, 1) : item.state === 'failed' ? 0 : item.sent} />
          <span class="photo-upload-state">
            <UploadState item={item} />
          </span>
        </li>
      ))}
    </ul>
  )
}

/** Where files can be dropped, with the file button for the keyboard and phones. */
function DropZone({ onFiles }: { onFiles: (files: File[]) => void }) {
  const [over, setOver] = useState(false)
  const accepts = (event: DragEvent) => Boolean(event.dataTransfer?.types.includes('Files'))
  return (
    <div
      class={over ? 'photo-drop photo-drop-over' : 'photo-drop'}
      data-testid="photo-drop"
      onDragEnter={(event) => {
        if (!accepts(event)) return
        event.preventDefault()
        setOver(true)
      }}
      onDragOver={(event) => {
        if (!accepts(event)) return
        event.preventDefault()
        if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy'
      }}
      onDragLeave={(event) => {
        // Leaving for a child of the zone is not leaving it.
        if (!(event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget))) setOver(false)
      }}
      onDrop={(event) => {
        event.preventDefault()
        setOver(false)
        onFiles(Array.from(event.dataTransfer?.files ?? []))
      }}
    >
      <p>Drop photos here, or</p>
      {/* The input itself is hidden (its look cannot be styled) but keeps the focus; its label is the button seen. */}
      <input
        id="animal-photo-files"
        class="visually-hidden"
        type="file"
        multiple
        accept={ACCEPTED}
        aria-describedby="animal-photo-help"
        onChange={(event) => {
          const input = event.currentTarget
          onFiles(Array.from(input.files ?? []))
          // The same file can be chosen again.
          input.value = ''
        }}
      />
      <label class="file-button" for="animal-photo-files">
        Choose photos
      </label>
    </div>
  )
}

/** The buttons of one photo, by what they do: to give the focus back to the same one once the list moves. */
type PhotoAction = 'earlier' | 'later' | 'main' | 'remove'

export function PhotosSection({ slug, pet }: { slug: string; pet: Pet }) {
  const [photos, setPhotos] = useState<Photo[]>(pet.photos ?? [])
  const [busy, setBusy] = useState(false)
  const { status, error, act } = useActions()
  const { dialog, ask } = useConfirm()
  const uploads = useUploads(slug, pet, setPhotos)
  const refocus = useRef<{ id: string; action: PhotoAction } | null>(null)
  const list = useRef<HTMLOListElement>(null)

  // A photo's button keeps the focus as the photo moves (its element is moved, which blurs it); at an end, its sibling takes it.
  // Once the buttons are enabled again: a disabled one takes no focus.
  useLayoutEffect(() => {
    const wanted = refocus.current
    if (!wanted || busy) return
    refocus.current = null
    const buttons = list.current?.querySelectorAll<HTMLButtonElement>(`[data-photo="${wanted.id}"] button`)
    const enabled = Array.from(buttons ?? []).filter((button) => !button.disabled)
    ;(enabled.find((button) => button.dataset.action === wanted.action) ?? enabled[0])?.focus()
  }, [photos, busy])

  const name = (index: number) => (index === 0 ? `the main photo of ${pet.name}` : `photo ${index + 1} of ${pet.name}`)

  const run = (what: () => Promise<string>) => {
    setBusy(true)
    void act(what).finally(() => setBusy(false))
  }

  const reorder = (photo: Photo, to: number, action: PhotoAction, said: string) =>
    run(async () => {
      const ids = photos.map((p) => p.id).filter((id) => id !== photo.id)
      ids.splice(to, 0, photo.id)
      const ordered = await api.put('/projects/{slug}/animals/{petId}/photos/order', { path: { slug, petId: pet.id }, body: { ids } })
      refocus.current = { id: photo.id, action }
      setPhotos(ordered)
      return said
    })

  const remove = (photo: Photo, index: number) =>
    ask(
      {
        title: `Remove ${name(index)}?`,
        body: (
          <p>
            The photo is removed from the animal's profile and its addresses stop working at once.{index === 0 && photos.length > 1 ? ' The next photo becomes the main photo.' : ''} This cannot be undone.
          </p>
        ),
        confirmLabel: 'Remove photo',
        danger: true,
      },
      () =>
        run(async () => {
          await api.delete('/projects/{slug}/animals/{petId}/photos/{photoId}', { path: { slug, petId: pet.id, photoId: photo.id } })
          setPhotos(await api.get('/projects/{slug}/animals/{petId}/photos', { path: { slug, petId: pet.id } }))
          document.getElementById('animal-photos-heading')?.focus()
          return `The photo is removed; ${pet.name} has ${countOf(photos.length - 1)}.`
        }),
    )

  const full = photos.length >= MAX_PHOTOS
  // A viewer sees the photos, and none of the controls that change them.
  const readOnly = useReadOnly()
  return (
    <section class="card editor-photos" aria-labelledby="animal-photos-heading">
      <h3 id="animal-photos-heading" tabIndex={-1}>
        Photos
      </h3>
      <p class="help" id="animal-photo-help">
        {countOf(photos.length)} of {MAX_PHOTOS}; the first is the main photo. JPEG, PNG, WebP, AVIF or GIF; each is added as it arrives, without its location and camera data.
      </p>
      {readOnly ? null : full ? <p>{pet.name} has the most photos an animal can have: remove one to add another.</p> : <DropZone onFiles={uploads.add} />}
      <UploadList uploads={uploads.uploads} />
      <StatusMessage text={uploads.status} />
      {photos.length === 0 && <p class="muted">No photos yet.</p>}
      {photos.length > 0 && (
        <ol class="photo-list" ref={list} aria-label={`Photos of ${pet.name}, the main one first`}>
          {photos.map((photo, index) => {
            const thumbnail = thumbnailOf(photo)
            const what = name(index)
            return (
              <li key={photo.id} class="photo" data-photo={photo.id}>
                <figure>
                  {thumbnail && <img src={thumbnail.url} width={thumbnail.width} height={thumbnail.height} alt={index === 0 ? `Main photo of ${pet.name}` : `Photo ${index + 1} of ${pet.name}`} />}
                  <figcaption>
                    {index === 0 ? <Badge tone="good">Main photo</Badge> : <span class="muted">Photo {index + 1}</span>}
                    <span class="muted">
                      {' '}
                      {photo.width} × {photo.height}
                    </span>
                  </figcaption>
                </figure>
                {!readOnly && (
                <div class="actions">
                  <button type="button" class="button-small" data-action="earlier" disabled={busy || index === 0} onClick={() => reorder(photo, index - 1, 'earlier', `Moved to place ${index}.`)}>
                    Move earlier<Hidden> {what}</Hidden>
                  </button>
                  <button type="button" class="button-small" data-action="later" disabled={busy || index === photos.length - 1} onClick={() => reorder(photo, index + 1, 'later', `Moved to place ${index + 2}.`)}>
                    Move later<Hidden> {what}</Hidden>
                  </button>
                  {index > 0 && (
                    <button type="button" class="button-small" data-action="main" disabled={busy} onClick={() => reorder(photo, 0, 'main', `Photo ${index + 1} is now the main photo of ${pet.name}.`)}>
                      Make main photo<Hidden> ({what})</Hidden>
                    </button>
                  )}
                  <button type="button" class="button-small button-danger" data-action="remove" disabled={busy} onClick={() => remove(photo, index)}>
                    Remove<Hidden> {what}</Hidden>
                  </button>
                </div>
                )}
              </li>
            )
          })}
        </ol>
      )}
      <StatusMessage text={status} />
      <ErrorMessage error={error} />
      {dialog}
    </section>
  )
}

function countOf(n: number): string {
  return n === 1 ? '1 photo' : `${n} photos`
}
