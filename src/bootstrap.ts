import { SYSTEM_CHANGE } from './audit/audit.js'
import type { Db } from './db/database.js'
import { isUniqueViolation } from './db/errors.js'
import { anyKeyUsed } from './keys/keys.repository.js'
import type { KeysService } from './keys/keys.service.js'
import { countProjects, findProjectBySlug } from './projects/projects.repository.js'
import type { ProjectsService } from './projects/projects.service.js'

export const DEFAULT_PROJECT = 'default'

/**
 * First start on an empty store: creates project `default` on the free plan and one key, so the
 * service is usable at once. Answers the key's secret, or nothing when the store was not empty.
 * The server calls it only once it listens, so a start that cannot listen creates no key that
 * nobody would see.
 */
export async function bootstrapEmptyStore(db: Db, { projects, keys }: { projects: ProjectsService; keys: KeysService }): Promise<string | undefined> {
  if ((await countProjects(db)) > 0) return undefined
  // Another instance starting at the same moment may win the race (a taken slug, or the unique
  // constraint): then it prints the key, and this one says nothing. Any other failure stops start-up.
  const project = await projects.create(DEFAULT_PROJECT, { plan: 'free' }, SYSTEM_CHANGE).catch((error: unknown) => {
    if (isUniqueViolation(error)) return undefined
    throw error
  })
  if (!project?.ok) return undefined
  const key = await keys.create({ project: DEFAULT_PROJECT, name: 'first key' }, SYSTEM_CHANGE)
  return key.ok ? key.secret : undefined
}

/**
 * Whether the store is still as a first start left it and no key has ever been used: the key
 * printed then may never have been seen (or kept), so a start says how to create another.
 */
export async function firstKeyUnused(db: Db): Promise<boolean> {
  if ((await countProjects(db)) !== 1) return false
  const project = await findProjectBySlug(db, DEFAULT_PROJECT)
  return project !== undefined && !(await anyKeyUsed(db, project.id))
}
