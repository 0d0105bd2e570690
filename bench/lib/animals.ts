/**
 * Animals with every profile field filled, as a shelter would enter them: the full-profile GET
 * list scenario posts them, the search benchmark writes them at scale. Deterministic: animal `i`
 * is always the same animal, so runs compare.
 */

const NAMES = [
  'Rex', 'Bella', 'Max', 'Luna', 'Charlie', 'Daisy', 'Milo', 'Coco', 'Buddy', 'Rosie', 'Oscar', 'Molly', 'Teddy', 'Lola', 'Archie', 'Ruby',
  'Toby', 'Poppy', 'Jasper', 'Willow', 'Biscuit', 'Pepper', 'Ziggy', 'Hazel', 'Mabel', 'Otis', 'Nala', 'Simba', 'Ginger', 'Shadow',
  'Pumpkin', 'Olive', 'Bruno', 'Maple', 'Finn', 'Cleo', 'Ollie', 'Honey', 'Murphy', 'Sasha',
]
/** Per category (1 Dog, 2 Cat, 3 Rabbit, 4 Small & Furry): breeds from the shipped lists. */
const BREEDS: Record<number, string[]> = {
  1: ['Labrador Retriever', 'German Shepherd Dog', 'Beagle', 'Border Collie', 'Boxer', 'Greyhound', 'Husky', 'Jack Russell Terrier', 'Golden Retriever', 'Dachshund'],
  2: ['Domestic Short Hair', 'Domestic Long Hair', 'Siamese', 'Maine Coon', 'Bengal', 'Persian', 'Ragdoll', 'Tabby'],
  3: ['Lionhead', 'Dutch', 'Mini Lop', 'Rex', 'Flemish Giant'],
  4: ['Guinea Pig', 'Hamster', 'Rat', 'Ferret', 'Chinchilla'],
}
const COLORS = ['Black', 'White', 'Brown', 'Tan', 'Grey', 'Cream', 'Ginger', 'Brindle', 'Tricolor', 'Blue']
const SEXES = ['female', 'male'] as const
const AGES = ['baby', 'young', 'adult', 'senior'] as const
const SIZES = ['small', 'medium', 'large', 'extra_large'] as const
const COATS = ['short', 'medium', 'long', 'wire', 'curly'] as const
const ANSWERS = ['yes', 'no', 'unknown'] as const
const TAGS = ['calm', 'playful', 'good on leash', 'loves walks', 'lap cat', 'indoor only', 'needs a garden', 'first-time owners', 'shy', 'energetic', 'senior friendly', 'bonded pair']
/**
 * The words descriptions are written with, most used first: a word's share of the words written
 * falls with its rank (Zipf, s = 1), as in any text. Of 40-odd words a description, "gentle"
 * (rank 12) ends up in about 43 % of animals, "friendly" (rank 20) in about 35 %, "agility"
 * (rank 150) in about 4 %.
 */
const WORDS = [
  'a', 'and', 'the', 'is', 'with', 'to', 'loves', 'who', 'of', 'in', 'for', 'gentle', 'her', 'his', 'very', 'likes', 'walks', 'home', 'at',
  'friendly', 'quiet', 'cuddles', 'garden', 'playful', 'treats', 'toys', 'children', 'family', 'sweet', 'calm', 'happy', 'house', 'trained',
  'curious', 'sofa', 'affectionate', 'energetic', 'patient', 'owner', 'learning', 'sit', 'stay', 'ball', 'fetch', 'napping', 'sunny', 'spot',
  'explorer', 'shy', 'first', 'then', 'runs', 'fields', 'evenings', 'brushing', 'grooming', 'food', 'healthy', 'forever', 'looking', 'enjoys',
  'chasing', 'lead', 'car', 'rides', 'window', 'birds', 'squirrels', 'beach', 'swimming', 'snow', 'rain', 'blanket', 'bed', 'crate', 'routine',
  'mornings', 'breakfast', 'dinner', 'snacks', 'chews', 'bones', 'puzzle', 'games', 'tricks', 'paw', 'high', 'five', 'rollover', 'recall',
  'whistle', 'clicker', 'training', 'classes', 'socialised', 'visitors', 'neighbours', 'postman', 'doorbell', 'barking', 'purring', 'meowing',
  'scratching', 'post', 'litter', 'tray', 'indoor', 'outdoor', 'catflap', 'hunting', 'mice', 'feathers', 'laser', 'string', 'boxes', 'bags',
  'climbing', 'tree', 'shelves', 'radiator', 'warmth', 'fire', 'lap', 'knees', 'shoulder', 'kisses', 'licks', 'tail', 'wagging', 'ears', 'nose',
  'whiskers', 'fluffy', 'sleek', 'coat', 'shiny', 'soft', 'silky', 'wiry', 'spotted', 'striped', 'patched', 'brindled', 'freckled', 'agility',
  'flyball', 'herding', 'scent', 'tracking', 'therapy', 'visits', 'hospital', 'school', 'reading', 'library', 'office', 'commute', 'train',
  'bus', 'ferry', 'camping', 'hiking', 'mountains', 'forest', 'river', 'lake', 'meadow', 'orchard', 'allotment', 'vegetables', 'carrots',
  'apples', 'hay', 'pellets', 'hutch', 'run', 'burrow', 'digging', 'tunnels', 'hideouts', 'wheel', 'nest', 'bedding', 'sawdust', 'straw',
  'saddle', 'bridle', 'stable', 'paddock', 'grazing', 'farrier', 'vet', 'checkups', 'medication', 'diet', 'senior', 'arthritis', 'teeth',
  'eyesight', 'hearing', 'deaf', 'blind', 'tripod', 'confidence', 'trust', 'bond', 'companion', 'buddy', 'sibling', 'pair', 'bonded',
]
/** Cumulative Zipf weights of WORDS, for sampling by binary search. */
const CUMULATIVE = WORDS.reduce<number[]>((sums, _, rank) => [...sums, (sums[rank - 1] ?? 0) + 1 / (rank + 1)], [])

function word(next: () => number): string {
  const target = next() * CUMULATIVE[CUMULATIVE.length - 1]!
  let low = 0
  let high = CUMULATIVE.length - 1
  while (low < high) {
    const middle = (low + high) >> 1
    if (CUMULATIVE[middle]! < target) low = middle + 1
    else high = middle
  }
  return WORDS[low]!
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const STATUSES = ['available', 'available', 'available', 'pending', 'sold'] as const

export interface AnimalBody {
  name: string
  categoryId: number
  status: (typeof STATUSES)[number]
  [field: string]: unknown
}

/**
 * Animal `i` with every profile field, at one of `locationIds`. Its birth and intake dates lie in
 * the two years before 2026-01-01, so they are valid whenever the benchmark runs.
 */
export function fullAnimal(i: number, locationIds: readonly number[]): AnimalBody {
  const next = random(i + 1)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
  const categoryId = 1 + Math.floor(next() * 4)
  const breeds = BREEDS[categoryId]!
  const primary = pick(breeds)
  const secondary = pick(breeds)
  const mixed = next() < 0.4 && secondary !== primary
  const born = new Date(Date.UTC(2024, 0, 1) + Math.floor(next() * 600) * 86_400_000)
  const intake = new Date(born.getTime() + Math.floor(next() * 100) * 86_400_000)
  const words = Array.from({ length: 25 + Math.floor(next() * 30) }, () => word(next))
  const tags = [...new Set([pick(TAGS), pick(TAGS), pick(TAGS)])]
  const name = `${pick(NAMES)} ${i + 1}`
  return {
    name,
    categoryId,
    status: STATUSES[i % STATUSES.length]!,
    externalId: `A-${String(i + 1).padStart(7, '0')}`,
    breeds: mixed ? { primary, secondary, mixed: true } : { primary },
    sex: pick(SEXES),
    age: pick(AGES),
    birthDate: born.toISOString().slice(0, 10),
    birthDateEstimated: next() < 0.5,
    size: pick(SIZES),
    colors: [...new Set([pick(COLORS), pick(COLORS)])],
    coat: pick(COATS),
    description: `${name.split(' ')[0]} is ${words.join(' ')}.\nAsk us about ${pick(TAGS)} animals.`,
    goodWith: { children: pick(ANSWERS), dogs: pick(ANSWERS), cats: pick(ANSWERS) },
    attributes: {
      spayedNeutered: next() < 0.7,
      houseTrained: next() < 0.6,
      vaccinated: next() < 0.8,
      microchipped: next() < 0.7,
      ...(next() < 0.1 ? { specialNeeds: true, specialNeedsNote: 'Needs a daily tablet with food.' } : { specialNeeds: false }),
    },
    adoptionFee: { amount: 5000 + 500 * Math.floor(next() * 30), currency: 'GBP' },
    intakeDate: intake.toISOString().slice(0, 10),
    locationId: pick(locationIds),
    tags,
    videoUrls: [`https://www.youtube.com/watch?v=bench${String(i).padStart(6, '0')}`],
  }
}

/** Location `j` of a project: a named place with an address and coordinates in Great Britain. */
export function benchLocation(j: number): { name: string; address: Record<string, string>; coordinates: { latitude: number; longitude: number } } {
  const next = random(1_000_003 + j)
  return {
    name: `Site ${j + 1}`,
    address: { line1: `${1 + j} High Street`, city: `Town ${j + 1}`, country: 'GB' },
    coordinates: { latitude: Number((50.5 + next() * 5).toFixed(5)), longitude: Number((-4 + next() * 4.5).toFixed(5)) },
  }
}
