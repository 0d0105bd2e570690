import type { Db } from '../db/database.js'
import type { SecretBox } from '../secret-box.js'
import { listSealedSecrets, replaceSealedSecrets } from './webhooks.repository.js'
import { secretContext } from './worker.js'

/** An endpoint whose signing secret (or previous secret) none of the configured keys opens. */
export interface UnopenableSecret {
  projectId: number
  endpointId: string
}

export interface SealedSecretsCheck {
  endpoints: number
  unopenable: UnopenableSecret[]
}

export interface ResealReport {
  /** Endpoints whose secrets were sealed again under the current key. */
  resealed: number
  /** Endpoints whose secrets the current key sealed already. */
  current: number
  /** Endpoints none of whose configured keys opens a secret: left as they are. */
  unopenable: UnopenableSecret[]
}

export interface SealedSecretsDeps {
  db: Db
  /** The webhooks' keyring: the current key and WEBHOOK_PREVIOUS_ENCRYPTION_KEYS. */
  box: SecretBox
}

export interface SealedSecrets {
  /** Which endpoints' secrets the keyring cannot open (read only). */
  check(): Promise<SealedSecretsCheck>
  /** Seals every secret the keyring opens under the current key; one transaction per endpoint. */
  reseal(): Promise<ResealReport>
}

/**
 * The webhook signing secrets at rest, against the keys configured: found at start when some were
 * sealed with a key this service no longer has, and sealed again under the current key after a
 * rotation, so the old key can leave WEBHOOK_PREVIOUS_ENCRYPTION_KEYS.
 */
export function createSealedSecrets({ db, box }: SealedSecretsDeps): SealedSecrets {
  const opens = (row: { id: string; secret: string; previous_secret: string | null }) => {
    try {
      box.open(row.secret, secretContext(row.id))
      if (row.previous_secret) box.open(row.previous_secret, secretContext(row.id))
      return true
    } catch {
      return false
    }
  }
  return {
    async check() {
      const rows = await listSealedSecrets(db)
      return { endpoints: rows.length, unopenable: rows.filter((row) => !opens(row)).map((row) => ({ projectId: row.project_id, endpointId: row.id })) }
    },

    async reseal() {
      const report: ResealReport = { resealed: 0, current: 0, unopenable: [] }
      for (const listed of await listSealedSecrets(db)) {
        // Each endpoint in its own transaction, its row read again inside: a row is never half
        // sealed, and a rotation that committed meanwhile is kept (its secrets are current).
        const outcome = await db.transaction().execute(async (trx) => {
          const [row] = await listSealedSecrets(trx, listed.id)
          if (!row) return 'gone' as const
          let secret: string | undefined
          let previous: string | undefined
          try {
            secret = box.reseal(row.secret, secretContext(row.id))
            previous = row.previous_secret ? box.reseal(row.previous_secret, secretContext(row.id)) : undefined
          } catch {
            return 'unopenable' as const
          }
          if (secret === undefined && previous === undefined) return 'current' as const
          const sealed = { secret: secret ?? row.secret, previous_secret: previous ?? row.previous_secret }
          return (await replaceSealedSecrets(trx, row.id, row, sealed)) ? ('resealed' as const) : ('current' as const)
        })
        if (outcome === 'unopenable') report.unopenable.push({ projectId: listed.project_id, endpointId: listed.id })
        else if (outcome !== 'gone') report[outcome] += 1
      }
      return report
    },
  }
}
