import { isDeepStrictEqual } from 'node:util'
import { type Change, recordChange } from '../audit/audit.js'
import type { CategoriesService } from '../categories/categories.service.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { LocationsService } from '../locations/locations.service.js'
import { mergePatch } from './profile.js'
import { isKnownIgnored, readHeader, readRow } from './pets.csv.js'
import { listByExternalId } from './pets.repository.js'
import type { NewPet, Pet, PetChanges } from './pets.schemas.js'
import { type CheckedPet, type PetsService, toPet } from './pets.service.js'

/**
 * An import of animals from rows (a CSV file's): first every row is read and checked, and any
 * problem stops the import before anything is written (each row's problems reported by its row
 * number); then each row adds an animal, or changes the one with its `externalId` (a field whose
 * column is in the file and whose cell is empty is removed), or leaves it alone when nothing
 * differs. Importing the same file again changes nothing.
 */

export interface ImportDeps {
  db: Db
  clock: Clock
  pets: Pick<PetsService, 'createChecked' | 'update' | 'check'>
  categories: Pick<CategoriesService, 'list'>
  locations: Pick<LocationsService, 'list'>
  /** The schema check of an animal to add (the API's NewPet): a message naming the field, or undefined. */
  validate(input: unknown): string | undefined
}

export interface ImportProblem {
  /** The row as a spreadsheet numbers it: the header is row 1. */
  row: number
  message: string
}

export interface ImportReport {
  rows: number
  created: number
  updated: number
  unchanged: number
  /** Rows whose status differs from the animal's: an animal's status follows its orders, so it is kept. */
  statusKept: number
  /** Rows without an identifier of the shelter's own, matched by their content instead. */
  derivedIds: number
  /** Columns the import does not read (photos, internal notes, unknown names). */
  ignoredColumns: string[]
  problems: ImportProblem[]
}

type Action = { row: number; create: CheckedPet } | { row: number; update: number; changes: PetChanges } | { row: number; unchanged: true }

/** The most changes written at once: creates among them share a commit. */
const AT_ONCE = 256

export class PetImporter {
  constructor(private readonly deps: ImportDeps) {}

  /**
   * Reads and checks every row; writes nothing unless every row is right and `dryRun` is false.
   * `progress` is told how many rows are done, as they are.
   */
  async run(
    projectId: number,
    columns: string[],
    rows: string[][],
    options: { dryRun: boolean; progress?: (done: number) => void; change: Change; file: string },
  ): Promise<ImportReport> {
    const header = readHeader(columns)
    const report: ImportReport = {
      rows: rows.length,
      created: 0,
      updated: 0,
      unchanged: 0,
      statusKept: 0,
      derivedIds: 0,
      ignoredColumns: header.ignored,
      problems: [],
    }
    if (!header.fields.includes('name')) report.problems.push({ row: 1, message: 'The header has no name column (name, or AnimalName): every animal needs its name.' })
    const unknown = header.ignored.filter((column) => !isKnownIgnored(column))
    if (unknown.length > 0 && header.fields.every((field) => field === undefined)) {
      report.problems.push({ row: 1, message: `No column of the header is one the import reads (${unknown.slice(0, 5).join(', ')}…): see the columns of an export.` })
    }
    if (report.problems.length > 0) return report

    const [categories, locations, existing] = await Promise.all([this.deps.categories.list(projectId), this.allLocations(projectId), listByExternalId(this.deps.db, projectId)])
    const context = {
      categoryByName: new Map(categories.map((category) => [category.name.toLowerCase(), category.id])),
      locationByName: new Map(locations.map((location) => [location.name.toLowerCase(), location.id])),
    }
    const actions: Action[] = []
    const seen = new Map<string, number>()
    for (const [i, cells] of rows.entries()) {
      const row = i + 2
      const problem = (message: string) => report.problems.push({ row, message })
      const read = readRow(header, cells, context)
      if (!read.ok) {
        for (const message of read.problems) problem(message)
        continue
      }
      const externalId = read.input.externalId as string
      const twice = seen.get(externalId)
      if (twice !== undefined) {
        problem(read.externalIdDerived ? `the same as row ${twice}: remove one of them` : `externalId "${externalId}" is also on row ${twice}: each animal once`)
        continue
      }
      seen.set(externalId, row)
      if (read.externalIdDerived) report.derivedIds++
      const record = existing.get(externalId)
      const current = record && toPet(record)
      // The animal as the row makes it: the current one with the row's columns over it.
      const wanted = current ? merged(current, read.input, read.named) : (read.input as Record<string, unknown>)
      const invalid = this.deps.validate(wanted)
      if (invalid) {
        problem(invalid)
        continue
      }
      const checked = await this.deps.pets.check(projectId, wanted as NewPet)
      if (!checked.ok) {
        problem(checked.message)
        continue
      }
      if (!current) {
        actions.push({ row, create: checked.pet })
        continue
      }
      if (read.input.status !== undefined && read.input.status !== current.status) report.statusKept++
      const changes = differences(current, wanted)
      actions.push(changes ? { row, update: current.id, changes } : { row, unchanged: true })
    }
    if (report.problems.length > 0 || options.dryRun) return count(report, actions)

    let done = 0
    for (let start = 0; start < actions.length; start += AT_ONCE) {
      const batch = actions.slice(start, start + AT_ONCE)
      const creates = batch.filter((action) => 'create' in action)
      const writes = [
        this.deps.pets.createChecked(projectId, creates.map((action) => action.create)).then((results) =>
          results.forEach((result, i) => {
            if (!result.ok) report.problems.push({ row: creates[i]!.row, message: result.message })
            options.progress?.(++done)
          }),
        ),
        ...batch.map(async (action) => {
          if ('update' in action) {
            const updated = await this.deps.pets.update(projectId, action.update, action.changes)
            if (!updated.ok) report.problems.push({ row: action.row, message: updated.message })
          }
          if (!('create' in action)) options.progress?.(++done)
        }),
      ]
      await Promise.all(writes)
    }
    count(report, actions)
    const { created, updated, unchanged } = report
    await recordChange(this.deps.db, this.deps.clock, options.change, {
      action: 'pet.imported',
      target: { type: 'project', id: projectId },
      projectId,
      details: { file: options.file, rows: report.rows, created, updated, unchanged, failed: report.problems.length },
    })
    return report
  }

  private async allLocations(projectId: number) {
    const all = []
    for (let after = 0; ; ) {
      const page = await this.deps.locations.list(projectId, { limit: 100, after })
      all.push(...page.items)
      if (page.nextAfter === undefined) return all
      after = page.nextAfter
    }
  }
}

function count(report: ImportReport, actions: Action[]): ImportReport {
  const failed = new Set(report.problems.map((problem) => problem.row))
  for (const action of actions) {
    if (failed.has(action.row)) continue
    if ('create' in action) report.created++
    else if ('update' in action) report.updated++
    else report.unchanged++
  }
  return report
}

/** The fields of an animal to write: its current ones, with the row's columns over them (an empty cell removes). */
function merged(current: Pet, input: Record<string, unknown>, named: ReadonlySet<string>): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...current }
  delete fields.id
  const patch = Object.fromEntries([...named].map((name) => [name, input[name] ?? null]))
  // The status follows the animal's orders: what the row says is not applied.
  delete patch.status
  const result = mergePatch(fields, patch) as Record<string, unknown>
  // Objects the row names are the row's, whole: a member it does not give is removed.
  for (const name of named) if (input[name] !== undefined && typeof input[name] === 'object' && !Array.isArray(input[name])) result[name] = input[name]
  return result
}

/** The merge patch from `current` to `wanted`, or undefined when they are the same. */
function differences(current: Pet, wanted: Record<string, unknown>): PetChanges | undefined {
  const changes: Record<string, unknown> = {}
  const names = new Set([...Object.keys(current), ...Object.keys(wanted)])
  for (const name of names) {
    if (name === 'id' || name === 'status') continue
    const before = (current as Record<string, unknown>)[name]
    const after = wanted[name]
    if (isDeepStrictEqual(before, after)) continue
    changes[name] = after === undefined ? null : after
  }
  return Object.keys(changes).length === 0 ? undefined : (changes as PetChanges)
}
