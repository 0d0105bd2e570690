import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'
import semver from 'semver'
import type { TestPlan } from '../scripts/test-plan.js'

// Opens no database (the dependency list): its subject is the same on both back ends.
export const testPlan: TestPlan = { legs: 'sqlite' }

/**
 * `npm install` on a Node.js version the project declares must not warn that a dependency needs
 * another one (EBADENGINE): every locked package supports every version in `engines.node`.
 */
const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }
const lock = JSON.parse(fs.readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }>
}

test('the declared Node.js versions are a valid range, and the README names the lowest', () => {
  assert.ok(semver.validRange(manifest.engines.node), manifest.engines.node)
  const lowest = semver.minVersion(manifest.engines.node)!
  const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  assert.match(readme, new RegExp(`Node\\.js ${lowest.major}\\.${lowest.minor}\\b`))
})

test('every locked package supports every Node.js version the project declares', () => {
  const ours = manifest.engines.node
  const disagreeing: string[] = []
  for (const [where, entry] of Object.entries(lock.packages)) {
    const theirs = Array.isArray(entry.engines) ? undefined : entry.engines?.node
    // An optional package (a platform build) that does not fit is skipped by npm, without a warning.
    if (!where || !theirs || entry.optional) continue
    if (!semver.subset(ours, theirs, { includePrerelease: false })) disagreeing.push(`${where.replace(/^.*node_modules\//, '')}@${entry.version}: node ${theirs}`)
  }
  assert.deepEqual(disagreeing, [], `packages that need Node.js versions outside "${ours}"`)
})
