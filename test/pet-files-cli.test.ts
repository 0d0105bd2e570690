import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { cleanup, cliJson, makeDataDir, runCli } from './helpers/process.js'

/**
 * The command's `pets import|export`, `locations` and `categories`, on the store (SQLite file,
 * or the PostgreSQL database of the leg): a listing site's upload file read by its column names,
 * every bad row reported by number with nothing written, re-runs that change nothing, an edited
 * file changing only what it changes, and an export that imports back into an equal project.
 */

type Pet = Record<string, unknown> & { id: number; name: string; externalId?: string }

let dataDir: string
const cli = (args: string[]) => runCli(args, { dataDir })
const json = <T>(args: string[]) => cliJson<T>(args, { dataDir })

function file(name: string, text: string): string {
  const target = path.join(dataDir, name)
  fs.writeFileSync(target, text)
  return target
}

async function exported(project: string): Promise<Pet[]> {
  return json<Pet[]>(['pets', 'export', '--project', project, '--format', 'json'])
}

/**
 * The animals without what the store assigns (ids and times), by externalId: what an import can
 * make equal (its rows are written several at once, so ids need not follow the file's order).
 */
function comparable(pets: Pet[]): Record<string, unknown>[] {
  return pets
    .map(({ id: _id, createdAt: _created, updatedAt: _updated, ...rest }) => rest)
    .sort((a, b) => String(a.externalId).localeCompare(String(b.externalId)))
}

const LISTING_UPLOAD = [
  'ID,Internal,AnimalName,PrimaryBreed,SecondaryBreed,Sex,Size,Age,Desc,Type,Status,Shots,Altered,NoDogs,NoCats,NoKids,Housetrained,Declawed,specialNeeds,Mix,photo1,arrival_date,birth_date,primaryColor,coat_length,adoption_fee,special_needs_notes,tags',
  'A-1,kennel 4,Rex,Labrador Retriever,Beagle,M,L,Adult,Friendly<br>and calm,Dog,A,1,1,0,1,0,1,,0,1,https://example.com/1.jpg,10/02/2026,03/01/2024,Black,Short,150,,"calm, good on leash"',
  'A-2,,Mia,Siamese,,F,S,Young,Sweet cat,Cat,P,1,0,,,1,,,1,,,,,White,,75.50,Needs daily pills,indoor',
  'A-3,,Thumper,Holland Lop,,M,S,Baby,,Rabbit,A,,,,,,,,,,,,,,,,,',
].join('\n')

before(async () => {
  dataDir = makeDataDir()
  for (const slug of ['shelter', 'mirror']) assert.equal((await cli(['projects', 'create', slug, '--plan', 'pro'])).code, 0)
})
after(() => cleanup())

describe('pets import and export', () => {
  test('a bad file: every bad row reported by number and reason, exit 1, nothing written (a dry run the same)', async () => {
    const bad = file(
      'bad.csv',
      [
        'ID,AnimalName,Type,Sex,Size,Age,birth_date,adoption_fee',
        'B-1,Rex,Dog,M,L,Adult,,',
        'B-2,,Dog,M,L,Adult,,',
        'B-3,Bad,Dragon,X,Huge,Old,2030-01-01,abc',
        'B-1,Twin,Dog,F,S,Baby,,',
        'B-5,Late,Cat,F,S,Baby,2099-01-01,',
      ].join('\n'),
    )
    for (const extra of [['--dry-run'], []]) {
      const result = await cli(['pets', 'import', '--project', 'shelter', '--file', bad, ...extra])
      assert.equal(result.code, 1, result.stderr)
      const lines = result.stdout.split('\n')
      assert.match(lines[0]!, /^\d+ problems in 5 rows; nothing was written:$/)
      for (const [row, reason] of [
        [3, /"name"/],
        [4, /category "Dragon": no category of the project has this name/],
        [4, /sex "X": use one of male, female, unknown/],
        [4, /size "Huge"/],
        [4, /age "Old"/],
        [4, /adoptionFee "abc"/],
        [5, /externalId "B-1" is also on row 2/],
        [6, /"birthDate" is in the future/],
      ] as const) {
        assert.ok(lines.some((line) => line.startsWith(`  row ${row}: `) && reason.test(line)), `row ${row} ${reason}: ${result.stdout}`)
      }
    }
    assert.deepEqual(await exported('shelter'), [])
  })

  test("a listing site's upload: read by its columns; again: nothing changes; edited: only what the file changes", async () => {
    const upload = file('upload.csv', LISTING_UPLOAD)
    const dry = await json<{ created: number; problems: unknown[] }>(['pets', 'import', '--project', 'shelter', '--file', upload, '--dry-run', '--json'])
    assert.deepEqual([dry.created, dry.problems], [3, []])
    assert.deepEqual(await exported('shelter'), [], 'a dry run writes nothing')

    const first = await json<{ created: number; updated: number; unchanged: number; ignoredColumns: string[] }>(['pets', 'import', '--project', 'shelter', '--file', upload, '--json'])
    assert.deepEqual([first.created, first.updated, first.unchanged], [3, 0, 0])
    assert.deepEqual(first.ignoredColumns, ['Internal', 'Declawed', 'photo1'])
    const pets = await exported('shelter')
    const rex = pets.find((pet) => pet.name === 'Rex')!
    assert.deepEqual(comparable([rex])[0], {
      name: 'Rex',
      categoryId: 1,
      status: 'available',
      externalId: 'A-1',
      breeds: { primary: 'Labrador Retriever', secondary: 'Beagle', mixed: true },
      sex: 'male',
      age: 'adult',
      birthDate: '2024-03-01',
      size: 'large',
      colors: ['Black'],
      coat: 'short',
      description: 'Friendly\nand calm',
      goodWith: { cats: 'no' },
      attributes: { spayedNeutered: true, houseTrained: true, vaccinated: true, specialNeeds: false },
      adoptionFee: { amount: 15000, currency: 'USD' },
      intakeDate: '2026-10-02',
      tags: ['calm', 'good on leash'],
    })
    const mia = pets.find((pet) => pet.name === 'Mia')!
    assert.deepEqual([mia.status, mia.goodWith, mia.attributes, mia.adoptionFee], [
      'pending',
      { children: 'no' },
      { spayedNeutered: false, vaccinated: true, specialNeeds: true, specialNeedsNote: 'Needs daily pills' },
      { amount: 7550, currency: 'USD' },
    ])

    const again = await json<{ created: number; updated: number; unchanged: number }>(['pets', 'import', '--project', 'shelter', '--file', upload, '--json'])
    assert.deepEqual([again.created, again.updated, again.unchanged], [0, 0, 3])
    assert.deepEqual(await exported('shelter'), pets, 'a second run changes nothing, not even the times')
    const audited = await json<{ action: string; details: Record<string, unknown> }[]>(['audit', 'list', '--project', 'shelter', '--action', 'pet.imported', '--json'])
    assert.deepEqual(
      audited.map((entry) => entry.details),
      [
        { file: 'upload.csv', rows: 3, created: 0, updated: 0, unchanged: 3, failed: 0 },
        { file: 'upload.csv', rows: 3, created: 3, updated: 0, unchanged: 0, failed: 0 },
      ],
      'one entry per import, none for a dry run',
    )

    // Rex's description edited, Mia's fee emptied, her status moved: only those.
    const edited = LISTING_UPLOAD.replace('Friendly<br>and calm', 'Calm and house-trained').replace(',75.50,', ',,').replace('Cat,P,', 'Cat,A,')
    const third = await json<{ created: number; updated: number; unchanged: number; statusKept: number }>(['pets', 'import', '--project', 'shelter', '--file', file('edited.csv', edited), '--json'])
    assert.deepEqual([third.created, third.updated, third.unchanged, third.statusKept], [0, 2, 1, 1])
    const now = await exported('shelter')
    assert.equal(now.find((pet) => pet.name === 'Rex')!.description, 'Calm and house-trained')
    const miaNow = now.find((pet) => pet.name === 'Mia')!
    assert.equal(miaNow.adoptionFee, undefined)
    assert.equal(miaNow.status, 'pending', "the status follows the animal's orders")
    assert.deepEqual(now.find((pet) => pet.name === 'Thumper'), pets.find((pet) => pet.name === 'Thumper'))
  })

  test("an export imports back into another project as the same animals, by the export's own columns", async () => {
    const csv = await runCli(['pets', 'export', '--project', 'shelter'], { dataDir })
    assert.equal(csv.code, 0, csv.stderr)
    assert.match(csv.stdout.split('\n')[0]!, /^id,externalId,name,categoryId,status,breedPrimary,/)
    const target = file('export.csv', csv.stdout)
    const result = await json<{ created: number; problems: unknown[] }>(['pets', 'import', '--project', 'mirror', '--file', target, '--json'])
    assert.deepEqual([result.created, result.problems], [3, []])
    assert.deepEqual(comparable(await exported('mirror')), comparable(await exported('shelter')))
    const written = path.join(dataDir, 'out.csv')
    assert.equal((await cli(['pets', 'export', '--project', 'mirror', '--output', written])).code, 0)
    assert.equal(fs.readFileSync(written, 'utf8').split('\n').length, csv.stdout.split('\n').length)
  })

  test('rows without an identifier are matched by their content: the same file twice adds them once', async () => {
    const plain = file('plain.csv', 'name,category,sex\nNemo,Scales; Fins & Other,male\nDory,Bird,female\n'.replace('Scales; Fins & Other', '"Scales, Fins & Other"'))
    const first = await json<{ created: number; derivedIds: number }>(['pets', 'import', '--project', 'mirror', '--file', plain, '--json'])
    assert.deepEqual([first.created, first.derivedIds], [2, 2])
    const second = await json<{ created: number; unchanged: number }>(['pets', 'import', '--project', 'mirror', '--file', plain, '--json'])
    assert.deepEqual([second.created, second.unchanged], [0, 2])
  })

  test('an import tells the webhook endpoints of each animal it adds: one pet.created delivery per new row, none for a re-run', async () => {
    const env = { WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('hex') }
    const hooked = <T>(args: string[]) => cliJson<T>(args, { dataDir, env })
    assert.equal((await cli(['projects', 'create', 'hooked', '--plan', 'pro'])).code, 0)
    const endpoint = await hooked<{ id: string }>(['webhooks', 'add', '--project', 'hooked', '--url', 'https://hooks.example.com/in', '--types', 'pet.created', '--json'])
    const rows = file('hooked.csv', 'externalId,name,categoryId\nh-1,Rex,1\nh-2,Mia,2\nh-3,Max,1\n')
    const deliveries = () => hooked<{ eventType: string }[]>(['webhooks', 'deliveries', endpoint.id, '--project', 'hooked', '--json'])
    assert.equal((await hooked<{ created: number }>(['pets', 'import', '--project', 'hooked', '--file', rows, '--json'])).created, 3)
    assert.deepEqual((await deliveries()).map((delivery) => delivery.eventType), ['pet.created', 'pet.created', 'pet.created'])
    assert.equal((await hooked<{ unchanged: number }>(['pets', 'import', '--project', 'hooked', '--file', rows, '--json'])).unchanged, 3)
    assert.equal((await deliveries()).length, 3)
  })

  test('an unknown project, a missing file or a header without names: one line, exit 1', async () => {
    const upload = file('upload2.csv', LISTING_UPLOAD)
    const unknown = await cli(['pets', 'import', '--project', 'nope', '--file', upload])
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /^adoption-store: No project with slug "nope"/)
    const missing = await cli(['pets', 'import', '--project', 'shelter', '--file', path.join(dataDir, 'missing.csv')])
    assert.match(missing.stderr, /^adoption-store: cannot read .*missing\.csv/)
    const noName = await cli(['pets', 'import', '--project', 'shelter', '--file', file('noname.csv', 'ID,Type\nZ-1,Dog\n')])
    assert.equal(noName.code, 1)
    assert.match(noName.stdout, /row 1: The header has no name column/)
  })
})

describe('locations and categories', () => {
  test('add, list, update and remove a location; a location with animals is kept', async () => {
    const added = await json<{ id: number; name: string; coordinates: unknown }>(['locations', 'add', 'Main shelter', '--project', 'shelter', '--city', 'Springfield', '--country', 'us', '--latitude', '39.78', '--longitude', '-89.65', '--json'])
    assert.deepEqual(added.coordinates, { latitude: 39.78, longitude: -89.65 })
    const updated = await json<{ address: Record<string, string> }>(['locations', 'update', String(added.id), '--project', 'shelter', '--postal-code', '62701', '--json'])
    assert.deepEqual(updated.address, { city: 'Springfield', country: 'US', postalCode: '62701' })
    assert.deepEqual((await json<{ name: string }[]>(['locations', 'list', '--project', 'shelter', '--json'])).map((l) => l.name), ['Main shelter'])
    const placed = await json<{ created: number }>(['pets', 'import', '--project', 'shelter', '--file', file('placed.csv', 'externalId,name,categoryId,location\nL-1,Biscuit,1,main shelter\n'), '--json'])
    assert.equal(placed.created, 1)
    const refused = await cli(['locations', 'remove', String(added.id), '--project', 'shelter'])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /has animals/)
    const bad = await cli(['locations', 'add', 'X', '--project', 'shelter', '--latitude', '91', '--longitude', '0'])
    assert.match(bad.stderr, /--latitude must be decimal degrees from -90 to 90/)
  })

  test('name a category, add breeds, and remove the name again', async () => {
    const set = await json<{ name: string; addedBreeds: string[] }>(['categories', 'set', '300', 'Guinea pig', '--project', 'shelter', '--breeds', 'Teddy, Abyssinian', '--json'])
    assert.deepEqual(set, { ...set, name: 'Guinea pig', addedBreeds: ['Abyssinian', 'Teddy'] })
    const list = await json<{ id: number; name: string }[]>(['categories', 'list', '--project', 'shelter', '--json'])
    assert.deepEqual(list.map((c) => [c.id, c.name]).slice(-2), [[8, 'Barnyard'], [300, 'Guinea pig']])
    assert.equal((await cli(['categories', 'remove', '300', '--project', 'shelter'])).code, 0)
    const long = await cli(['categories', 'set', '5', 'x'.repeat(101), '--project', 'shelter'])
    assert.match(long.stderr, /"name" must be at most 100 characters/)
  })
})
