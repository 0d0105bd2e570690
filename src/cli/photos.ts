/**
 * `adoption-store pets photos add` (photos from files, through the same service as uploads) and
 * `adoption-store media verify` (rows whose files are missing, files no row names).
 */
import fs from 'node:fs'
import type { Command } from 'commander'
import { createPhotos } from '../photos/photos.module.js'
import type { Photo } from '../photos/photos.schemas.js'
import { createObjectStore } from '../storage/backend.js'
import { type CliContext, CliError, withFeatures } from './common.js'
import { withShelter } from './shelter.js'

export function registerPhotoCommands(program: Command, cli: CliContext): void {
  const pets = program.commands.find((command) => command.name() === 'pets')
  if (!pets) throw new Error('the pets command group is registered first')

  pets
    .command('photos')
    .description("an animal's photos")
    .command('add')
    .description('add photos of an animal from files (JPEG, PNG, WebP, AVIF or GIF, typed by their bytes), in order, as its last ones; works on the store')
    .argument('<id>', "the animal's id")
    .argument('<files...>', 'the image files')
    .requiredOption('--project <slug>', 'the project')
    .option('--json', 'print the photos added as JSON')
    .action(async (id: string, files: string[], options: { project: string; json?: boolean }) => {
      const petId = Number(id)
      if (!Number.isSafeInteger(petId) || petId < 1) throw new CliError(`The animal's id must be a positive integer, not "${id}".`)
      for (const file of files) if (!fs.existsSync(file)) throw new CliError(`No file ${file}.`)
      await withShelter(cli, options.project, async ({ projectId, photos }) => {
        const added: (Photo & { file: string })[] = []
        const change = cli.change
        try {
          for (const file of files) {
            const result = await photos.add(projectId, petId, fs.readFileSync(file), { change })
            if (!result.ok) throw new CliError(`${file}: ${result.message}${added.length ? ` (${added.length} photo${added.length === 1 ? '' : 's'} added before it)` : ''}`)
            added.push({ file, ...result.photo })
          }
        } finally {
          if (added.length) cli.print(options.json, added, () => added.map((photo) => `${photo.file}: photo ${photo.id}, ${photo.width} × ${photo.height}`).join('\n'))
        }
      })
    })

  program
    .command('media')
    .description('stored photo files')
    .command('verify')
    .description('compare photo rows with the stored files: rows whose files are missing, files no row names (exit code 1 when any); changes nothing')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }) => {
      const build = (deps: Parameters<Parameters<typeof withFeatures>[1]>[0]) =>
        createPhotos({ ...deps, store: createObjectStore(deps.config), generations: { dataChanged: async () => undefined } })
      await withFeatures(cli, build, async (photos) => {
        try {
          const report = await photos.service.verify()
          cli.print(options.json, report, () =>
            [
              `${report.photos} photo${report.photos === 1 ? '' : 's'}, ${report.files} stored file${report.files === 1 ? '' : 's'}`,
              ...report.missing.map((m) => `missing: ${m.key} (photo ${m.photoId} of animal ${m.petId})`),
              ...report.orphans.map((o) => `orphan: ${o.key} (${o.size} bytes, ${o.modifiedAt})`),
              report.missing.length + report.orphans.length === 0 ? 'ok: every photo has its files, and every file its photo' : '',
            ]
              .filter(Boolean)
              .join('\n'),
          )
          if (report.missing.length + report.orphans.length > 0) cli.exitCode = 1
        } finally {
          await photos.sweeper.close()
        }
      })
    })
}
