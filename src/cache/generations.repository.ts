import { prepare } from '../db/prepared.js'

/** A scope's generation, as the triggers of migration 0007 keep it (embedded store). */
export const readGeneration = prepare((db, scope: string) => db.selectFrom('cache_generations').select('value').where('scope', '=', scope))
