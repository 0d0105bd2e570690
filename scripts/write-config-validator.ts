/** Writes src/config-validator.ts (scripts/config-validator.ts says what it is): run `npm run config:validator` after changing EnvSchema. */
import fs from 'node:fs'
import { CONFIG_VALIDATOR_FILE, configValidatorSource } from './config-validator.js'

fs.writeFileSync(CONFIG_VALIDATOR_FILE, configValidatorSource())
process.stdout.write(`wrote ${CONFIG_VALIDATOR_FILE}\n`)
