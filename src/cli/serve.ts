/** `adoption-store serve` (the default command): run the HTTP service. */
import type { Command } from 'commander'
import type { CliContext } from './common.js'

export function registerServeCommand(program: Command, cli: CliContext): void {
  program
    .command('serve', { isDefault: true })
    .description('run the HTTP service (the default command)')
    .action(async () => {
      // Loaded only here: the other commands start faster without the HTTP stack.
      const { serve } = await import('../server.js')
      await serve(cli.config())
    })
}
