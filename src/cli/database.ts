/** `adoption-store migrate`: the database schema itself. */
import type { Command } from 'commander'
import { migrateToLatest, openDatabase } from '../db/database.js'
import { type CliContext, jsonOption } from './common.js'

export function registerDatabaseCommands(program: Command, cli: CliContext): void {
  jsonOption(program.command('migrate').description('bring the database schema up to date (also done at every start)')).action(async (options: { json?: boolean }) => {
    const database = openDatabase(cli.config(), { inlineWrites: true })
    try {
      const result = await migrateToLatest(database.db)
      const applied = (result.results ?? []).map((r) => r.migrationName)
      cli.print(options.json, { database: database.location, applied }, () =>
        applied.length ? `Applied ${applied.join(', ')} to ${database.location}` : `${database.location} is up to date`,
      )
    } finally {
      await database.close()
    }
  })
}
