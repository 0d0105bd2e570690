import type { Migration } from 'kysely'
import * as initial from './0001-initial.js'
import * as apiKeyBans from './0002-api-key-bans.js'
import * as orders from './0003-orders.js'
import * as domains from './0004-domains.js'
import * as accounts from './0005-accounts.js'
import * as usage from './0006-usage.js'
import * as cacheGenerations from './0007-cache-generations.js'
import * as auditAndUserStates from './0008-audit-and-user-states.js'
import * as adoptionHistoryAndNameSearch from './0009-adoption-history-and-name-search.js'
import * as signInsAndOneTimePasswords from './0010-sign-ins-and-one-time-passwords.js'
import * as webhooks from './0011-webhooks.js'
import * as animalProfiles from './0012-animal-profiles.js'
import * as searchPerProject from './0013-search-per-project.js'
import * as petPhotos from './0014-pet-photos.js'
import * as searchWords from './0015-search-words.js'
import * as keyScopes from './0016-key-scopes.js'
import * as adoptionSite from './0017-adoption-site.js'
import * as siteCacheGeneration from './0018-site-cache-generation.js'
import * as webhookPrivateNetworks from './0019-webhook-private-networks.js'
import * as webhookAttempts from './0020-webhook-attempts.js'
import * as readOnlyRole from './0021-read-only-role.js'
import * as auditEverything from './0022-audit-everything.js'
import * as webhookEvents from './0023-webhook-events.js'
import * as webhookChangesKeepCaches from './0024-webhook-changes-keep-caches.js'

/** Every migration, in order. Names are permanent: they are recorded in deployed databases. */
export const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-api-key-bans': apiKeyBans,
  '0003-orders': orders,
  '0004-domains': domains,
  '0005-accounts': accounts,
  '0006-usage': usage,
  '0007-cache-generations': cacheGenerations,
  '0008-audit-and-user-states': auditAndUserStates,
  '0009-adoption-history-and-name-search': adoptionHistoryAndNameSearch,
  '0010-sign-ins-and-one-time-passwords': signInsAndOneTimePasswords,
  '0011-webhooks': webhooks,
  '0012-animal-profiles': animalProfiles,
  '0013-search-per-project': searchPerProject,
  '0014-pet-photos': petPhotos,
  '0015-search-words': searchWords,
  '0016-key-scopes': keyScopes,
  '0017-adoption-site': adoptionSite,
  '0018-site-cache-generation': siteCacheGeneration,
  '0019-webhook-private-networks': webhookPrivateNetworks,
  '0020-webhook-attempts': webhookAttempts,
  '0021-read-only-role': readOnlyRole,
  '0022-audit-everything': auditEverything,
  '0023-webhook-events': webhookEvents,
  '0024-webhook-changes-keep-caches': webhookChangesKeepCaches,
}
