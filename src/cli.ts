#!/usr/bin/env node
/**
 * The `adoption-store` command (src/cli/program.ts) on the process's own terminal. A failure ends
 * the process at once with its status; a command that succeeded (`serve` among them) ends when its
 * work does.
 */
import { runCommand } from './cli/program.js'

const status = await runCommand(process.argv.slice(2), process)
if (status !== 0) process.exit(status)
