import { petsAdminRoutes } from './pets-admin.routes.js'
import { type PetsDeps, PetsService } from './pets.service.js'

/** The animals feature: its service (used by /v1, the admin API and the CLI alike) and its admin API routes (the /v1 scope registers its public routes). */
export function createPets(deps: PetsDeps) {
  return { service: new PetsService(deps), adminRoutes: petsAdminRoutes }
}

export type Pets = ReturnType<typeof createPets>
