/**
 * The animal editor's sections, each a fieldset of real controls: pickers for what has a list
 * (category, breeds, location, currency), selects for the profile's enumerations, date inputs,
 * yes/no/unknown radio groups, and text where people write. Each control names the API field it
 * sets, so that an error of the API about that field is shown on it.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, PET_STATUSES, type ProjectCategory, type ProjectLocation } from '../api'
import { CheckboxField, RadioGroup, SelectField, TextAreaField, TextField } from '../form-fields'
import { idOptions } from '../project-choices'
import { AGES, type Answer, ANSWERS, CARE, type Care, COATS, COMPANIONS, type Companion, type Draft, MAX_COLORS, SEXES, SIZES } from './draft'
import { amountHint, CURRENCIES } from './fee'

export interface SectionProps {
  draft: Draft
  set: <K extends keyof Draft>(name: K, value: Draft[K]) => void
  /** The API's complaint about a field (`breeds.primary`), or null. */
  errorOf: (field: string) => string | null
}

/** The local date, `YYYY-MM-DD`: the latest a birth or intake date can be. */
function today(): string {
  const now = new Date()
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`
}

/** A value of an enumeration as people read it: `extra_large` as "extra large". */
const spoken = (value: string) => value.replace(/_/g, ' ')

function choices<T extends string>(values: readonly T[], none: string): { value: T | ''; text: string }[] {
  return [{ value: '', text: none }, ...values.map((value) => ({ value, text: spoken(value) }))]
}

function Section({ legend, children }: { legend: string; children: ComponentChildren }) {
  return (
    <fieldset class="editor-section">
      <legend>{legend}</legend>
      <div class="editor-fields">{children}</div>
    </fieldset>
  )
}

export function AboutSection({ draft, set, errorOf, categories, adding }: SectionProps & { categories: readonly ProjectCategory[] | null; adding: boolean }) {
  return (
    <Section legend="About">
      <TextField id="animal-name" label="Name" value={draft.name} onChange={(v) => set('name', v)} error={errorOf('name')} input={{ required: true, maxLength: 100, autoComplete: 'off' }} />
      <SelectField id="animal-category" label="Category" value={draft.categoryId} options={idOptions(categories, draft.categoryId)} onChange={(v) => set('categoryId', v)} error={errorOf('categoryId')} />
      {adding && <SelectField id="animal-status" label="Status" value={draft.status} options={PET_STATUSES.map((value) => ({ value, text: value }))} onChange={(v) => set('status', v)} />}
      <TextField
        id="animal-external-id"
        label="External id"
        help="The shelter's own id for the animal, unique in the project"
        value={draft.externalId}
        onChange={(v) => set('externalId', v)}
        error={errorOf('externalId')}
        input={{ maxLength: 64, autoComplete: 'off' }}
      />
    </Section>
  )
}

/** The breeds the category lists, for the pickers: any other name may be typed too. */
function useBreeds(slug: string, categoryId: string): string[] {
  const [breeds, setBreeds] = useState<string[]>([])
  useEffect(() => {
    let current = true
    setBreeds([])
    const id = Number(categoryId)
    if (Number.isSafeInteger(id) && id >= 1) {
      // A category id that names no category has no list: the fields stay free text.
      api.get('/projects/{slug}/categories/{categoryId}/breeds', { path: { slug, categoryId: id } }).then(
        (read) => current && setBreeds(read.map((breed) => breed.name)),
        () => undefined,
      )
    }
    return () => {
      current = false
    }
  }, [slug, categoryId])
  return breeds
}

export function BreedSection({ draft, set, errorOf, slug }: SectionProps & { slug: string }) {
  const breeds = useBreeds(slug, draft.categoryId)
  const help = breeds.length > 0 ? `Pick one of the category's ${breeds.length} breeds, or type another` : undefined
  return (
    <Section legend="Breed">
      <datalist id="animal-breeds">
        {breeds.map((breed) => (
          <option key={breed} value={breed} />
        ))}
      </datalist>
      <TextField id="animal-primary-breed" label="Primary breed" help={help} value={draft.primaryBreed} onChange={(v) => set('primaryBreed', v)} error={errorOf('breeds.primary')} input={{ list: 'animal-breeds', maxLength: 100, autoComplete: 'off' }} />
      <TextField id="animal-secondary-breed" label="Secondary breed" value={draft.secondaryBreed} onChange={(v) => set('secondaryBreed', v)} error={errorOf('breeds.secondary')} input={{ list: 'animal-breeds', maxLength: 100, autoComplete: 'off' }} />
      <CheckboxField id="animal-mixed" label="Mixed breed" checked={draft.mixed} onChange={(v) => set('mixed', v)} />
    </Section>
  )
}

const COLOR_LABELS = ['Main colour', 'Second colour', 'Third colour']

export function LooksSection({ draft, set, errorOf }: SectionProps) {
  return (
    <Section legend="Looks and age">
      <SelectField id="animal-sex" label="Sex" value={draft.sex} options={choices(SEXES, 'Not given')} onChange={(v) => set('sex', v)} error={errorOf('sex')} />
      <SelectField id="animal-age" label="Age" value={draft.age} options={choices(AGES, 'Not given')} onChange={(v) => set('age', v)} error={errorOf('age')} />
      <SelectField id="animal-size" label="Size" help="When grown" value={draft.size} options={choices(SIZES, 'Not given')} onChange={(v) => set('size', v)} error={errorOf('size')} />
      <SelectField id="animal-coat" label="Coat" value={draft.coat} options={choices(COATS, 'Not given')} onChange={(v) => set('coat', v)} error={errorOf('coat')} />
      <div class="field-group">
        <TextField id="animal-birth-date" label="Date of birth" value={draft.birthDate} onChange={(v) => set('birthDate', v)} error={errorOf('birthDate')} input={{ type: 'date', max: today() }} />
        <CheckboxField id="animal-birth-date-estimated" label="The date of birth is an estimate" checked={draft.birthDateEstimated && draft.birthDate !== ''} disabled={draft.birthDate === ''} onChange={(v) => set('birthDateEstimated', v)} />
      </div>
      {Array.from({ length: MAX_COLORS }, (_, i) => (
        <TextField
          key={i}
          id={`animal-color-${i + 1}`}
          label={COLOR_LABELS[i] ?? `Colour ${i + 1}`}
          value={draft.colors[i] ?? ''}
          onChange={(v) => set('colors', draft.colors.map((color, j) => (j === i ? v : color)))}
          error={i === 0 ? errorOf('colors') : null}
          input={{ maxLength: 50, autoComplete: 'off' }}
        />
      ))}
    </Section>
  )
}

export function DescriptionSection({ draft, set, errorOf }: SectionProps) {
  return (
    <Section legend="Description">
      <TextAreaField id="animal-description" label="Description for adopters" wide rows={6} maxLength={10_000} value={draft.description} onChange={(v) => set('description', v)} error={errorOf('description')} />
    </Section>
  )
}

const ANSWER_OPTIONS = ANSWERS.map((value) => ({ value, text: value === 'yes' ? 'Yes' : value === 'no' ? 'No' : 'Unknown' }))
const COMPANION_LABELS: Record<Companion, string> = { children: 'Children', dogs: 'Dogs', cats: 'Cats' }
const CARE_LABELS: Record<Care, string> = { spayedNeutered: 'Spayed or neutered', houseTrained: 'House-trained', vaccinated: 'Vaccinated', microchipped: 'Microchipped', specialNeeds: 'Special needs' }

export function GoodWithSection({ draft, set }: SectionProps) {
  return (
    <Section legend="Good with">
      {COMPANIONS.map((companion) => (
        <RadioGroup
          key={companion}
          name={`good-with-${companion}`}
          legend={COMPANION_LABELS[companion]}
          value={draft.goodWith[companion]}
          options={ANSWER_OPTIONS}
          onChange={(answer: Answer) => set('goodWith', { ...draft.goodWith, [companion]: answer })}
        />
      ))}
    </Section>
  )
}

export function CareSection({ draft, set, errorOf }: SectionProps) {
  return (
    <Section legend="Care">
      {CARE.map((name) => (
        <RadioGroup key={name} name={`care-${name}`} legend={CARE_LABELS[name]} value={draft.care[name]} options={ANSWER_OPTIONS} onChange={(answer: Answer) => set('care', { ...draft.care, [name]: answer })} />
      ))}
      {draft.care.specialNeeds === 'yes' && (
        <TextAreaField id="animal-special-needs-note" label="What the special needs are" wide rows={2} maxLength={500} value={draft.specialNeedsNote} onChange={(v) => set('specialNeedsNote', v)} error={errorOf('attributes.specialNeedsNote')} />
      )}
    </Section>
  )
}

const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency' })
const CURRENCY_OPTIONS = CURRENCIES.map((code) => ({ value: code, text: `${code} (${currencyNames.of(code) ?? code})` }))

export function FeeSection({ draft, set, errorOf }: SectionProps) {
  return (
    <Section legend="Adoption fee">
      <TextField
        id="animal-fee"
        label="Amount"
        help={`Leave empty for no fee; ${amountHint(draft.feeCurrency)}`}
        value={draft.feeAmount}
        onChange={(v) => set('feeAmount', v)}
        error={errorOf('adoptionFee.amount') ?? errorOf('adoptionFee')}
        input={{ inputMode: 'decimal', autoComplete: 'off' }}
      />
      <SelectField id="animal-currency" label="Currency" value={draft.feeCurrency} options={CURRENCY_OPTIONS} onChange={(v) => set('feeCurrency', v)} error={errorOf('adoptionFee.currency')} />
    </Section>
  )
}

/** Where a video link leads, as people read it: `youtube.com/watch?v=…` (the scheme and `www.` left out). */
function videoLabel(url: string): string {
  return url.replace(/^https:\/\/(www\.)?/, '')
}

export function ShelterSection({ draft, set, errorOf, locations, savedVideos }: SectionProps & { locations: readonly ProjectLocation[] | null; savedVideos: readonly string[] }) {
  return (
    <Section legend="At the shelter">
      <TextField id="animal-intake-date" label="Intake date" value={draft.intakeDate} onChange={(v) => set('intakeDate', v)} error={errorOf('intakeDate')} input={{ type: 'date', min: draft.birthDate || undefined, max: today() }} />
      <SelectField id="animal-location" label="Location" value={draft.locationId} options={[{ value: '', text: 'No location' }, ...idOptions(locations, draft.locationId)]} onChange={(v) => set('locationId', v)} error={errorOf('locationId')} />
      <TextField id="animal-tags" label="Tags" wide help="Comma-separated, up to 20, e.g. calm, good on leash" value={draft.tags} onChange={(v) => set('tags', v)} error={errorOf('tags')} input={{ autoComplete: 'off' }} />
      <TextAreaField id="animal-videos" label="Video links" wide rows={3} maxLength={2_504} help="One per line, up to 5: https links to YouTube or Vimeo" value={draft.videoUrls} onChange={(v) => set('videoUrls', v)} error={errorOf('videoUrls')} />
      {savedVideos.length > 0 && (
        <div class="field-wide">
          <p class="help" id="animal-saved-videos">
            The saved links, to watch them (each opens in a new tab):
          </p>
          <ul class="video-links" aria-labelledby="animal-saved-videos">
            {savedVideos.map((url) => (
              <li key={url}>
                <a href={url} target="_blank" rel="noopener noreferrer">
                  {videoLabel(url)}
                </a>
              </li>
            ))}
          </ul>
        </div>
      )}
    </Section>
  )
}
