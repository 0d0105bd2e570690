import { locationsAdminRoutes } from './locations.routes.js'
import { type LocationsDeps, LocationsService } from './locations.service.js'

/** The locations feature: its service, and its admin API routes (the /v1 scope registers its public routes). */
export function createLocations(deps: LocationsDeps) {
  return { service: new LocationsService(deps), adminRoutes: locationsAdminRoutes }
}

export type Locations = ReturnType<typeof createLocations>
