import type { Category } from '../categories/categories.schemas.js'
import type { Location } from '../locations/locations.schemas.js'
import type { Pet as StoredPet } from '../pets/pets.schemas.js'
import type { Photo as StoredPhoto } from '../photos/photos.schemas.js'
import { html, jsonForScript, raw, type SafeHtml } from './html.js'
import type { SiteSettings } from './site.schemas.js'

/** A photo's file, as its `variants` list them. */
interface Variant {
  width: number
  height: number
  url: string
}
type Photo = Omit<StoredPhoto, 'variants'> & { variants: { webp: Variant[]; jpeg: Variant[] } }

/** An animal as the pets service answers it, its photos typed. */
export type Pet = Omit<StoredPet, 'photos'> & { photos?: Photo[] }

/** What every page of a project's site knows: its settings, its name and where its pages are. */
export interface SiteContext {
  settings: SiteSettings
  /** The shelter's name as shown: the display name, else the project slug. */
  name: string
  /** The path the site's pages start at: `` on the project's hosts, `/sites/<slug>` on the API's. */
  base: string
  /** The absolute address of the site (for Open Graph and JSON-LD), without a trailing slash. */
  origin: string
  /** Without the header and footer, links opening a new tab: the page inside another site's iframe. */
  embed: boolean
}

export const LABELS = {
  sex: { female: 'Female', male: 'Male', unknown: 'Sex unknown' },
  age: { baby: 'Baby', young: 'Young', adult: 'Adult', senior: 'Senior' },
  size: { small: 'Small', medium: 'Medium', large: 'Large', extra_large: 'Extra large' },
  coat: { hairless: 'Hairless', short: 'Short coat', medium: 'Medium coat', long: 'Long coat', wire: 'Wire coat', curly: 'Curly coat' },
  companions: { children: 'children', dogs: 'dogs', cats: 'cats' },
  attributes: { spayedNeutered: 'Spayed or neutered', houseTrained: 'House-trained', vaccinated: 'Vaccinated', microchipped: 'Microchipped', specialNeeds: 'Has special needs' },
} as const

/** White or near-black text on the brand colour, whichever contrasts more (WCAG relative luminance). */
function textOn(color: string): string {
  const channel = (hex: string) => {
    const c = parseInt(hex, 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  const l = 0.2126 * channel(color.slice(1, 3)) + 0.7152 * channel(color.slice(3, 5)) + 0.0722 * channel(color.slice(5, 7))
  return (1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#fff' : '#111')
}

const DEFAULT_COLOR = '#1f5f8b'

function style(settings: SiteSettings): SafeHtml {
  // The colour is validated (#rrggbb) where it is stored; checked again here, as it lands in CSS.
  const brand = /^#[0-9a-fA-F]{6}$/.test(settings.primaryColor ?? '') ? settings.primaryColor! : DEFAULT_COLOR
  return raw(`<style>:root{--b:${brand};--on:${textOn(brand)}}${CSS}</style>`)
}

const CSS = [
  '*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#fafafa}',
  'a{color:#0b4f7c}a:focus,button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #f0a500;outline-offset:2px}',
  '.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:2}',
  'header.site{background:var(--b);color:var(--on);padding:12px 16px}header.site a{color:var(--on);text-decoration:none;font-weight:700;font-size:1.25rem;display:inline-flex;align-items:center;gap:10px}header.site img{max-height:48px;width:auto}',
  'main{max-width:1100px;margin:0 auto;padding:16px}h1{font-size:1.6rem;margin:.3em 0}',
  'form.filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;align-items:end;background:#fff;padding:12px;border:1px solid #ddd;border-radius:8px}',
  'label{display:block;font-weight:600;font-size:.9rem}input,select,textarea{font:inherit;width:100%;padding:6px;border:1px solid #767676;border-radius:4px;background:#fff;color:#1b1b1b}',
  'fieldset{border:0;padding:0;margin:0}legend{font-weight:600;font-size:.9rem}.check{display:flex;gap:6px;align-items:center;font-weight:400}.check input{width:auto}',
  'button{font:inherit;font-weight:600;background:var(--b);color:var(--on);border:0;border-radius:4px;padding:8px 16px;cursor:pointer}',
  'ul.grid{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:16px}',
  '.card{background:#fff;border:1px solid #ddd;border-radius:8px;overflow:hidden}.card a{display:block;color:inherit;text-decoration:none}.card img,.card .nophoto{display:block;width:100%;height:auto;aspect-ratio:4/3;object-fit:cover;background:#e8e8e8}',
  '.card h2{font-size:1.15rem;margin:8px 12px 0;color:#0b4f7c}.card p{margin:2px 12px 10px;color:#444}',
  'nav.pages{display:flex;gap:16px;margin:16px 0}.gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:8px}.gallery img{width:100%;height:auto;border-radius:6px}',
  'dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}dt{font-weight:600}dd{margin:0}.desc{white-space:pre-line}',
  '.enquiry{background:#fff;border:1px solid #ddd;border-radius:8px;padding:16px;max-width:640px}.enquiry p.field{margin:0 0 12px}.hint{color:#555;font-size:.9rem}',
  '.errors{border:2px solid #b00020;padding:8px 16px;border-radius:6px;background:#fff4f4}.error{color:#b00020;font-weight:600}[aria-invalid=true]{border-color:#b00020}',
  '.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}footer.site{border-top:1px solid #ddd;padding:16px;color:#333;max-width:1100px;margin:0 auto}',
].join('')

export function page(context: SiteContext, title: string, body: SafeHtml, head: SafeHtml = html``): string {
  const { settings, name, base, embed } = context
  const chrome = !embed
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title === name ? name : `${title} · ${name}`}</title>${head}${style(settings)}${embed ? raw('<base target="_blank">') : ''}</head>
<body>${chrome ? html`<a class="skip" href="#main">Skip to content</a>
<header class="site"><a href="${base}/">${settings.logoUrl ? html`<img src="${settings.logoUrl}" alt="" height="48" width="48">` : ''}<span>${name}</span></a></header>` : ''}
<main id="main">${body}</main>
${chrome ? footer(settings) : ''}</body></html>`.value
}

function footer(settings: SiteSettings): SafeHtml {
  const { about, contactEmail, contactPhone } = settings
  if (!about && !contactEmail && !contactPhone) return html``
  return html`<footer class="site">${about ? html`<p class="desc">${about}</p>` : ''}${
    contactEmail || contactPhone
      ? html`<p>Contact: ${contactEmail ? html`<a href="mailto:${contactEmail}">${contactEmail}</a>` : ''}${contactEmail && contactPhone ? ' · ' : ''}${
          contactPhone ? html`<a href="tel:${contactPhone.replace(/[^0-9+]/g, '')}">${contactPhone}</a>` : ''
        }</p>`
      : ''
  }</footer>`
}

// ---------------------------------------------------------------------------------------------
// Photos


/** An `<img>` with the photo's own width and height (no layout shift), its WebP files as `srcset`, JPEG as `src`. */
export function photoImg(photo: Photo, alt: string, sizes: string, lazy: boolean): SafeHtml {
  const jpeg = photo.variants.jpeg
  const fallback = jpeg.find((variant) => variant.width >= 640) ?? jpeg[jpeg.length - 1]!
  const srcset = (list: typeof jpeg) => list.map((variant) => `${variant.url} ${variant.width}w`).join(', ')
  const img = html`<img src="${fallback.url}" srcset="${srcset(jpeg)}" sizes="${sizes}" width="${photo.width}" height="${photo.height}" alt="${alt}"${lazy ? raw(' loading="lazy"') : ''} decoding="async">`
  return html`<picture><source type="image/webp" srcset="${srcset(photo.variants.webp)}" sizes="${sizes}">${img}</picture>`
}

// ---------------------------------------------------------------------------------------------
// The listing

export interface ListingFilters {
  q?: string | undefined
  categoryId?: number | undefined
  age?: string | undefined
  size?: string | undefined
  sex?: string | undefined
  goodWith: { children: boolean; dogs: boolean; cats: boolean }
}

export interface ListingView {
  filters: ListingFilters
  categories: Category[]
  pets: Pet[]
  total: number | undefined
  /** The query string of the next page, when there is one. */
  next: string | undefined
  /** Whether this is a later page (a link back to the first is shown). */
  later: boolean
  /** The query string of this search without its page, for "first page". */
  first: string
  /** Why the search was refused (a `q` with no letters or digits), shown above the form. */
  problem: string | undefined
}

/** Cards above this index are likely in the first screen: loaded at once; the rest lazily. */
const EAGER_CARDS = 4

export function speciesOf(pet: Pet, categories: readonly Category[]): string | undefined {
  return categories.find((category) => category.id === pet.categoryId)?.name
}

function breedOf(pet: Pet): string | undefined {
  const breeds = pet.breeds
  if (!breeds) return undefined
  const names = [breeds.primary, breeds.secondary].filter(Boolean).join(' / ')
  return breeds.mixed ? `${names} mix` : names
}

function select(name: string, label: string, options: Record<string, string>, chosen: string | undefined): SafeHtml {
  return html`<p><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}"><option value="">Any</option>${Object.entries(options).map(
    ([value, text]) => html`<option value="${value}"${chosen === value ? raw(' selected') : ''}>${text}</option>`,
  )}</select></p>`
}

export function listingPage(context: SiteContext, view: ListingView): string {
  const { filters, categories, pets } = view
  const action = context.embed ? `${context.base}/embed` : `${context.base}/`
  const species = Object.fromEntries(categories.map((category) => [String(category.id), category.name]))
  const form = html`<form class="filters" method="get" action="${action}"${context.embed ? raw(' target="_self"') : ''} role="search" aria-label="Find an animal">
<p><label for="f-q">Search</label><input id="f-q" name="q" type="search" maxlength="200" value="${filters.q ?? ''}"></p>
${select('categoryId', 'Species', species, filters.categoryId === undefined ? undefined : String(filters.categoryId))}
${select('age', 'Age', LABELS.age, filters.age)}${select('size', 'Size', LABELS.size, filters.size)}${select('sex', 'Sex', { female: 'Female', male: 'Male' }, filters.sex)}
<fieldset><legend>Good with</legend>${(['children', 'dogs', 'cats'] as const).map(
    (companion) =>
      html`<label class="check"><input type="checkbox" name="goodWith${companion[0]!.toUpperCase()}${companion.slice(1)}" value="yes"${filters.goodWith[companion] ? raw(' checked') : ''}> ${LABELS.companions[companion]}</label>`,
  )}</fieldset>
<p><button type="submit">Search</button></p></form>`
  const cards = pets.map((pet, index) => {
    const photo = pet.photos?.[0]
    const facts = [pet.age && LABELS.age[pet.age], pet.sex && LABELS.sex[pet.sex], pet.size && LABELS.size[pet.size]].filter(Boolean).join(' · ')
    return html`<li class="card"><a href="${context.base}/animals/${pet.id}">${
      photo ? photoImg(photo, '', '(max-width: 480px) 100vw, 260px', index >= EAGER_CARDS) : html`<div class="nophoto" role="presentation"></div>`
    }<h2>${pet.name}</h2><p>${[speciesOf(pet, categories), breedOf(pet)].filter(Boolean).join(' · ')}</p>${facts ? html`<p>${facts}</p>` : ''}</a></li>`
  })
  const count = view.total === undefined ? '' : html`<p role="status">${view.total === 1 ? '1 animal' : `${view.total} animals`} waiting for a home${pets.length < view.total ? ` (showing ${pets.length})` : ''}.</p>`
  const pages =
    view.next || view.later
      ? html`<nav class="pages" aria-label="Pages">${view.later ? html`<a href="${action}${view.first}">First page</a>` : ''}${view.next ? html`<a href="${action}${view.next}" rel="next">Next page</a>` : ''}</nav>`
      : ''
  const body = html`<h1>${context.embed ? `Adopt from ${context.name}` : 'Animals looking for a home'}</h1>
${view.problem ? html`<p class="errors" role="alert">${view.problem}</p>` : ''}${form}
${count}${pets.length ? html`<ul class="grid">${cards}</ul>` : html`<p>No animal matches this search right now.</p>`}${pages}`
  const head = html`<meta name="description" content="${`Animals available for adoption at ${context.name}`}"><meta property="og:title" content="${context.name}"><meta property="og:type" content="website">`
  return page(context, context.embed ? `Adopt from ${context.name}` : context.name, body, head)
}

// ---------------------------------------------------------------------------------------------
// The animal's page and its enquiry form

export interface EnquiryForm {
  /** The signed form token. */
  token: string
  values: { name?: string; email?: string; phone?: string; message?: string }
  /** Field name → message; `form` for the form as a whole. */
  errors: Partial<Record<'name' | 'email' | 'phone' | 'message' | 'form', string>>
}

export interface AnimalView {
  pet: Pet
  categories: Category[]
  location: Location | undefined
  form: EnquiryForm | undefined
}

function money(amount: number, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount / 10 ** digits)
}

function addressOf(location: Location | undefined): string | undefined {
  const address = location?.address
  if (!address) return undefined
  return [address.line1, address.line2, [address.postalCode, address.city].filter(Boolean).join(' '), address.region, address.country].filter(Boolean).join(', ')
}

const FIELD_LABELS = { name: 'Your name', email: 'Email', phone: 'Phone', message: 'Message' } as const

function field(form: EnquiryForm, name: keyof EnquiryForm['values'], input: SafeHtml, hint?: string): SafeHtml {
  const error = form.errors[name]
  const described = [hint && `${name}-hint`, error && `${name}-error`].filter(Boolean).join(' ')
  const attributes = raw(`id="e-${name}" name="${name}"${described ? ` aria-describedby="${described}"` : ''}${error ? ' aria-invalid="true"' : ''}`)
  return html`<p class="field"><label for="e-${name}">${FIELD_LABELS[name]}</label>${hint ? html`<span class="hint" id="${name}-hint">${hint}</span>` : ''}${
    error ? html`<span class="error" id="${name}-error">${error}</span>` : ''
  }${raw(input.value.replace('%ATTRS%', attributes.value))}</p>`
}

export function enquiryFormHtml(context: SiteContext, pet: Pet, form: EnquiryForm): SafeHtml {
  const { values, errors } = form
  const listed = Object.entries(errors).filter(([, message]) => message)
  const summary = listed.length
    ? html`<div class="errors" id="enquiry-errors" role="alert" tabindex="-1"><h3>Your enquiry was not sent</h3><ul>${listed.map(([name, message]) =>
        name === 'form' ? html`<li>${message}</li>` : html`<li><a href="#e-${name}">${message}</a></li>`,
      )}</ul></div>`
    : ''
  return html`<section class="enquiry" aria-labelledby="enquiry-title"><h2 id="enquiry-title">Ask about adopting ${pet.name}</h2>${summary}
<form method="post" action="${context.base}/animals/${pet.id}/enquiry${context.embed ? '?embed=1' : ''}" novalidate>
<input type="hidden" name="token" value="${form.token}">
${field(form, 'name', html`<input %ATTRS% type="text" autocomplete="name" required maxlength="200" value="${values.name ?? ''}">`)}
${field(form, 'email', html`<input %ATTRS% type="email" autocomplete="email" maxlength="254" value="${values.email ?? ''}">`, 'An email or a phone number, or both, so the shelter can answer.')}
${field(form, 'phone', html`<input %ATTRS% type="tel" autocomplete="tel" maxlength="40" value="${values.phone ?? ''}">`)}
${field(form, 'message', html`<textarea %ATTRS% rows="5" maxlength="5000">${values.message ?? ''}</textarea>`, 'Optional: your home, other animals, questions.')}
<p class="hp" aria-hidden="true"><label for="e-website">Leave this empty</label><input id="e-website" name="website" type="text" tabindex="-1" autocomplete="off"></p>
<p><button type="submit">Send enquiry</button></p></form></section>`
}

export function animalPage(context: SiteContext, view: AnimalView): string {
  const { pet, categories, location } = view
  const species = speciesOf(pet, categories)
  const breed = breedOf(pet)
  const url = `${context.origin}/animals/${pet.id}`
  const photos = pet.photos ?? []
  const facts: [string, string][] = []
  if (species) facts.push(['Species', species])
  if (breed) facts.push(['Breed', breed])
  if (pet.age) facts.push(['Age', LABELS.age[pet.age]])
  if (pet.sex) facts.push(['Sex', LABELS.sex[pet.sex]])
  if (pet.size) facts.push(['Size', LABELS.size[pet.size]])
  if (pet.coat) facts.push(['Coat', LABELS.coat[pet.coat]])
  if (pet.colors) facts.push(['Colours', pet.colors.join(', ')])
  for (const companion of ['children', 'dogs', 'cats'] as const) {
    const answer = pet.goodWith?.[companion]
    if (answer && answer !== 'unknown') facts.push([`Good with ${LABELS.companions[companion]}`, answer === 'yes' ? 'Yes' : 'No'])
  }
  const attributes = pet.attributes ?? {}
  for (const name of ['spayedNeutered', 'houseTrained', 'vaccinated', 'microchipped', 'specialNeeds'] as const) {
    if (attributes[name] !== undefined) facts.push([LABELS.attributes[name], attributes[name] ? 'Yes' : 'No'])
  }
  if (attributes.specialNeedsNote) facts.push(['Special needs', attributes.specialNeedsNote])
  if (pet.adoptionFee) facts.push(['Adoption fee', money(pet.adoptionFee.amount, pet.adoptionFee.currency)])
  if (location) facts.push(['Where', [location.name, addressOf(location)].filter(Boolean).join(' — ')])
  if (pet.tags?.length) facts.push(['Tags', pet.tags.join(', ')])

  const description = pet.description ?? `${pet.name} is looking for a home at ${context.name}.`
  const main = photos[0]
  const largest = main?.variants.jpeg[main.variants.jpeg.length - 1]
  const jsonLd = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: pet.name,
    description,
    url,
    ...(photos.length && { image: photos.map((photo) => photo.variants.jpeg[photo.variants.jpeg.length - 1]!.url) }),
    ...(species && { category: species }),
    ...(pet.adoptionFee && {
      offers: {
        '@type': 'Offer',
        price: (pet.adoptionFee.amount / 10 ** (new Intl.NumberFormat('en', { style: 'currency', currency: pet.adoptionFee.currency }).resolvedOptions().maximumFractionDigits ?? 2)).toString(),
        priceCurrency: pet.adoptionFee.currency,
        availability: pet.status === 'available' ? 'https://schema.org/InStock' : 'https://schema.org/SoldOut',
      },
    }),
    brand: { '@type': 'Organization', name: context.name },
  }
  const head = html`<meta name="description" content="${description.slice(0, 300)}"><link rel="canonical" href="${url}">
<meta property="og:type" content="website"><meta property="og:title" content="${`${pet.name} · ${context.name}`}"><meta property="og:description" content="${description.slice(0, 300)}"><meta property="og:url" content="${url}">${
    largest ? html`<meta property="og:image" content="${largest.url}"><meta property="og:image:width" content="${largest.width}"><meta property="og:image:height" content="${largest.height}">` : ''
  }<script type="application/ld+json">${jsonForScript(jsonLd)}</script>`
  const gallery = photos.length
    ? html`<div class="gallery">${photos.map((photo, index) => photoImg(photo, index === 0 ? `${pet.name}` : `${pet.name}, photo ${index + 1}`, '(max-width: 600px) 100vw, 360px', index > 0))}</div>`
    : ''
  const body = html`<p><a href="${context.embed ? `${context.base}/embed` : `${context.base}/`}">← All animals</a></p>
<article><h1>${pet.name}</h1>${gallery}
${facts.length ? html`<dl class="facts">${facts.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>` : ''}
${pet.description ? html`<h2>About ${pet.name}</h2><p class="desc">${pet.description}</p>` : ''}</article>
${view.form ? enquiryFormHtml(context, pet, view.form) : html`<p role="status"><strong>${pet.name} is no longer available for adoption.</strong></p>`}
`
  return page(context, pet.name, body, head)
}

/** A page that only says something: a result, a refusal, a problem. */
export function messagePage(context: SiteContext, title: string, message: SafeHtml | string, back?: { href: string; text: string }): string {
  return page(context, title, html`<h1>${title}</h1><p>${message}</p>${back ? html`<p><a href="${back.href}">${back.text}</a></p>` : ''}`)
}
