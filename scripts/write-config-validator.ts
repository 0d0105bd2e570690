/** Writes src/config-validator.ts (scripts/config-validator.ts says what it is): run `npm run config:validator` after changing EnvSchema. */
import { CONFIG_VALIDATOR_FILE, configValidatorSource } from './config-validator.js'
import { writeGenerated } from './generated-file.js'

writeGenerated(CONFIG_VALIDATOR_FILE, configValidatorSource())
