/**
 * Where the suite runs each test file, and in which order: what the file declares about itself,
 * and how long it took in earlier runs. No list of files is kept anywhere; a new file runs, with
 * the defaults, as soon as it exists.
 *
 * A file declares itself, when the defaults do not fit it, with one exported constant that the
 * runner reads from its source (never running it) and the type checker checks:
 *
 *   import type { TestPlan } from '../scripts/test-plan.js'
 *   // Why: (the reason the defaults do not fit)
 *   export const testPlan: TestPlan = { legs: 'sqlite', lane: 'waiting' }
 *
 * `grep -l 'export const testPlan' test/` lists the files that do. Durations (test/durations.json,
 * written by `bash scripts/test.sh --record-durations`) only order the files, longest first; a
 * file without one starts before the others, as if it were the longest.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type TypeScript from 'typescript'

// Required rather than imported: Node scans a CommonJS package an ES module imports for its names
// (cjs-module-lexer), and TypeScript's one 9 MB file costs most of a second that way.
const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript

export const ROOT = fileURLToPath(new URL('../', import.meta.url))

const LEGS = ['both', 'sqlite', 'either'] as const
const LANES = ['busy', 'waiting', 'serial'] as const

/** What a test file says about how the suite runs it: `export const testPlan: TestPlan = { … }`. */
export interface TestPlan {
  /**
   * Which legs of the suite run the file. `both` (the default): the SQLite leg, then the
   * PostgreSQL one. `sqlite`: the first only, for a file whose subject is the same on both back
   * ends (it opens no database, or what it tests is not the back end). `either`: once, in the leg
   * `placeEitherFiles` picks to even out the legs' lengths, for such a file that is long enough
   * for where it runs to matter (the browser pages: their Chromium is a fifth of a leg's CPU);
   * without a PostgreSQL leg, in the SQLite one.
   */
  legs?: (typeof LEGS)[number]
  /**
   * Where in a leg. `busy` (the default): with the other files, TEST_CONCURRENCY at a time.
   * `waiting`: a file that mostly waits on real time (timeouts, outages, rate-limit windows), in a
   * lane of its own beside the busy files, one at a time, so that its waits hold none of their
   * places. `serial`: a file whose assertions measure time on the machine itself, after the
   * others, alone, as on an idle machine.
   */
  lane?: (typeof LANES)[number]
}

export type Leg = 'sqlite' | 'postgres'
/** Seconds each file took, from its start to its end, in each leg of a run. */
export type Durations = Record<string, Partial<Record<Leg, number>>>

export const DURATIONS_FILE = path.join(ROOT, 'test', 'durations.json')

/** Every test file, `test/<name>.test.ts`, by name. */
export function testFiles(): string[] {
  return fs
    .readdirSync(path.join(ROOT, 'test'))
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => `test/${name}`)
}

/** The file's `testPlan`, defaults filled in; an error naming the file when it cannot be read. */
export function readTestPlan(file: string): Required<TestPlan> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
  const fail = (why: string): never => {
    throw new Error(`${file}: ${why}; write it as \`export const testPlan: TestPlan = { legs: 'sqlite', lane: 'waiting' }\` (scripts/test-plan.ts)`)
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest)
  let value: TypeScript.Expression | undefined
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement) || !statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === 'testPlan') value = declaration.initializer ?? fail('testPlan has no value')
    }
  }
  const plan: Required<TestPlan> = { legs: 'both', lane: 'busy' }
  if (value === undefined) {
    // A plan that is not an exported constant would be silently ignored.
    if (/\btestPlan\b/.test(text)) fail('testPlan is not an exported constant of the file')
    return plan
  }
  while (ts.isSatisfiesExpression(value) || ts.isAsExpression(value) || ts.isParenthesizedExpression(value)) value = value.expression
  if (!ts.isObjectLiteralExpression(value)) return fail('testPlan is not an object literal')
  for (const property of value.properties) {
    if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name) || !ts.isStringLiteral(property.initializer)) {
      return fail(`testPlan's properties are names with a string each, not \`${property.getText(source)}\``)
    }
    const [name, setting] = [property.name.text, property.initializer.text]
    if (name === 'legs' && (LEGS as readonly string[]).includes(setting)) plan.legs = setting as Required<TestPlan>['legs']
    else if (name === 'lane' && (LANES as readonly string[]).includes(setting)) plan.lane = setting as Required<TestPlan>['lane']
    else fail(`testPlan has ${name}: '${setting}', and knows legs (${LEGS.join(', ')}) and lane (${LANES.join(', ')})`)
  }
  return plan
}

/** test/durations.json; nothing when it does not exist. */
export function readDurations(): Durations {
  try {
    return JSON.parse(fs.readFileSync(DURATIONS_FILE, 'utf8')) as Durations
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw new Error(`${DURATIONS_FILE}: ${(error as Error).message}`)
  }
}

/** `measured` (seconds, by file) written over the durations kept for `leg`; files that no longer exist are dropped. */
export function writeDurations(leg: Leg, measured: ReadonlyMap<string, number>): void {
  const kept = readDurations()
  const files = new Set(testFiles())
  const durations: Durations = {}
  for (const file of [...files].sort()) {
    const entry = { ...kept[file] }
    const seconds = measured.get(file)
    if (seconds !== undefined) entry[leg] = Math.round(seconds * 10) / 10
    if (Object.keys(entry).length) durations[file] = entry
  }
  fs.writeFileSync(DURATIONS_FILE, `${JSON.stringify(durations, null, 2)}\n`)
}

/** One leg's files in their lanes, each lane longest first. */
export interface LegPlan {
  busy: string[]
  waiting: string[]
  serial: string[]
}

/**
 * Which leg runs each `either` file, when the suite runs `legs`: longest first, each into the leg
 * with the least work so far, that work counted from test/durations.json as the leg's wall time
 * would grow: a busy file's seconds over `concurrency`, a serial file's whole. A file is as long
 * as the longest duration it has (it may have run in either leg); one without any goes first.
 */
export function placeEitherFiles(legs: readonly Leg[], files: readonly string[], plans: ReadonlyMap<string, Required<TestPlan>>, durations: Durations, concurrency: number): Map<string, Leg> {
  const plan = (file: string): Required<TestPlan> => plans.get(file) ?? { legs: 'both', lane: 'busy' }
  const cost = (file: string, seconds: number) => (plan(file).lane === 'serial' ? seconds : plan(file).lane === 'busy' ? seconds / concurrency : 0)
  const work = new Map<Leg, number>(legs.map((leg) => [leg, 0]))
  for (const file of files) {
    for (const leg of legs) {
      if (plan(file).legs !== 'either' && runsIn(leg, file, plans)) work.set(leg, work.get(leg)! + cost(file, durations[file]?.[leg] ?? 0))
    }
  }
  const either = files.filter((file) => plan(file).legs === 'either').sort((a, b) => longest(durations, b) - longest(durations, a) || a.localeCompare(b))
  const placed = new Map<string, Leg>()
  for (const file of either) {
    const leg = legs.reduce((least, other) => (work.get(other)! < work.get(least)! ? other : least))
    placed.set(file, leg)
    const seconds = longest(durations, file)
    work.set(leg, work.get(leg)! + cost(file, Number.isFinite(seconds) ? seconds : 0))
  }
  return placed
}

/** Whether `leg` runs `file`: an `either` file only where it was placed (SQLite when it was not). */
function runsIn(leg: Leg, file: string, plans: ReadonlyMap<string, Required<TestPlan>>, placed: ReadonlyMap<string, Leg> = new Map()): boolean {
  const legs = plans.get(file)?.legs ?? 'both'
  return legs === 'both' || (legs === 'sqlite' && leg === 'sqlite') || (legs === 'either' && (placed.get(file) ?? 'sqlite') === leg)
}

/** A file's longest duration in any leg; Infinity for one never measured. */
function longest(durations: Durations, file: string): number {
  const seconds = Object.values(durations[file] ?? {}).filter((value) => value !== undefined)
  return seconds.length ? Math.max(...seconds) : Infinity
}

export function planLeg(leg: Leg, files: readonly string[], plans: ReadonlyMap<string, Required<TestPlan>>, durations: Durations, placed: ReadonlyMap<string, Leg> = new Map()): LegPlan {
  // An `either` file runs in one leg at a time: its duration in another still orders it.
  const seconds = (file: string) => durations[file]?.[leg] ?? (plans.get(file)?.legs === 'either' ? longest(durations, file) : Infinity)
  const lane = (name: Required<TestPlan>['lane']) =>
    files
      .filter((file) => plans.get(file)?.lane === name && runsIn(leg, file, plans, placed))
      // Longest first; unmeasured files first of all, and by name among equals.
      .sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b))
  return { busy: lane('busy'), waiting: lane('waiting'), serial: lane('serial') }
}
