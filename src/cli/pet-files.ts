/**
 * `adoption-store pets import|export`: a project's animals from and to CSV (or JSON) files,
 * working on the store itself, like `keys` and `projects` (no API key, no rate limit).
 */
import fs from 'node:fs'
import path from 'node:path'
import { finished } from 'node:stream/promises'
import { type Command, Option } from 'commander'
import type * as CsvParse from 'csv-parse/sync'
import type * as CsvStringify from 'csv-stringify'
import { systemClock } from '../clock.js'
import { lazy } from '../lazy.js'
import { CSV_COLUMNS, petRow } from '../pets/pets.csv.js'
import { type ImportReport, PetImporter } from '../pets/pets.import.js'
import { NewPetSchema } from '../pets/pets.schemas.js'
import { type CliContext, CliError, schemaCheck, type Terminal } from './common.js'
import { withShelter } from './shelter.js'

// Loaded by the commands that read or write CSV, not at every command's start.
const csvParse = lazy<typeof CsvParse>('csv-parse/sync')
const csvStringify = lazy<typeof CsvStringify>('csv-stringify')

export function registerPetFileCommands(program: Command, cli: CliContext): void {
  const pets = program.commands.find((command) => command.name() === 'pets')
  if (!pets) throw new Error('the pets command group is registered first')

  pets
    .command('import')
    .description("add or change a project's animals from a CSV file (header row; this service's export columns, or a listing site's upload columns); works on the store")
    .requiredOption('--project <slug>', 'the project')
    .requiredOption('--file <path>', 'the CSV file')
    .option('--dry-run', 'check every row and report, write nothing')
    .option('--json', 'print the report as JSON')
    .action(async (options: { project: string; file: string; dryRun?: boolean; json?: boolean }) => {
      const { columns, rows } = readCsv(options.file)
      await withShelter(cli, options.project, async ({ db, projectId, pets, locations, categories }) => {
        const importer = new PetImporter({ db, clock: systemClock, pets, locations, categories, validate: newPetValidator() })
        const progress = progressLine(rows.length, options.dryRun || options.json ? undefined : cli.terminal.stderr)
        const report = await importer.run(projectId, columns, rows, { dryRun: options.dryRun === true, progress: progress.update, change: cli.change, file: path.basename(options.file) })
        progress.end()
        cli.print(options.json, report, () => describeReport(report, options.dryRun === true))
        if (report.problems.length > 0) cli.exitCode = 1
      })
    })

  pets
    .command('export')
    .description("write a project's animals, every field, in id order: CSV (the import's columns) or JSON; works on the store")
    .requiredOption('--project <slug>', 'the project')
    .addOption(new Option('--format <format>', 'csv or json').choices(['csv', 'json']).default('csv'))
    .option('--output <path>', 'the file to write (default: standard output)')
    .action(async (options: { project: string; format: 'csv' | 'json'; output?: string }) => {
      await withShelter(cli, options.project, async ({ projectId, pets }) => {
        const out: NodeJS.WritableStream = options.output ? fs.createWriteStream(options.output) : cli.terminal.stdout
        // A reader that stops early (`| head`) ends the export, quietly (the process's own stdout; a
        // caller's terminal keeps what it is given).
        if (out === process.stdout) process.stdout.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? process.exit(0) : undefined))
        const csv = options.format === 'csv' ? csvStringify().stringify({ header: true, columns: [...CSV_COLUMNS] }) : undefined
        if (csv) csv.pipe(out)
        const write = (text: string) => new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once('drain', resolve)))
        let first = true
        if (!csv) await write('[')
        for (let after: number | undefined = 0; after !== undefined; ) {
          const page = await pets.search(projectId, { limit: 100, after, fields: '*' })
          if (!page.ok) throw new CliError(page.message)
          for (const pet of page.items) {
            if (csv) {
              if (!csv.write(petRow(pet))) await new Promise((resolve) => csv.once('drain', resolve))
            } else {
              await write(`${first ? '\n' : ',\n'}  ${JSON.stringify(pet)}`)
              first = false
            }
          }
          after = page.next && 'after' in page.next ? page.next.after : undefined
        }
        if (csv) {
          csv.end()
          await finished(csv)
        } else await write(first ? ']\n' : '\n]\n')
        if (out !== cli.terminal.stdout) {
          out.end()
          await finished(out)
        }
      })
    })
}

function readCsv(file: string): { columns: string[]; rows: string[][] } {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`)
  }
  let records: string[][]
  try {
    records = csvParse().parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][]
  } catch (error) {
    throw new CliError(`${file} is not a CSV file this import can read: ${(error as Error).message}`)
  }
  const [columns, ...rows] = records
  if (!columns) throw new CliError(`${file} is empty: a header row and a row per animal are needed.`)
  return { columns, rows }
}

/** The API's own check of an animal to add, the name trimmed first as the API's route does. */
function newPetValidator(): (input: unknown) => string | undefined {
  const check = schemaCheck(NewPetSchema)
  return (input) => {
    const value = { ...(input as Record<string, unknown>) }
    if (typeof value.name === 'string') value.name = value.name.trim()
    return check(value)
  }
}

function describeReport(report: ImportReport, dryRun: boolean): string {
  const lines: string[] = []
  if (report.problems.length > 0) {
    lines.push(`${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} in ${report.rows} rows; nothing was written:`)
    for (const { row, message } of report.problems) lines.push(`  row ${row}: ${message}`)
  } else {
    const verb = dryRun ? 'would add' : 'added'
    lines.push(`${report.rows} rows: ${verb} ${report.created}, ${dryRun ? 'would change' : 'changed'} ${report.updated}, ${report.unchanged} unchanged${dryRun ? ' (dry run: nothing written)' : ''}.`)
  }
  if (report.statusKept > 0) lines.push(`${report.statusKept} rows give another status than their animal's: kept, as an animal's status follows its adoption orders.`)
  if (report.derivedIds > 0) lines.push(`${report.derivedIds} rows have no externalId (or ID): matched by their content, so an edited row adds another animal.`)
  if (report.ignoredColumns.length > 0) lines.push(`Columns not read: ${report.ignoredColumns.join(', ')}.`)
  return lines.join('\n')
}

/** A one-line progress display on a terminal, redrawn at most 10 times a second; nothing elsewhere. */
function progressLine(total: number, stream: Terminal['stderr'] | undefined): { update: (done: number) => void; end: () => void } {
  if (!stream?.isTTY || total < 1000) return { update: () => undefined, end: () => undefined }
  let drawn = 0
  const draw = (done: number) => {
    const width = 30
    const filled = Math.round((done / total) * width)
    stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`)
  }
  return {
    update: (done) => {
      const now = Date.now()
      if (now - drawn < 100 && done < total) return
      drawn = now
      draw(done)
    },
    end: () => stream.write('\r\x1b[K'),
  }
}
