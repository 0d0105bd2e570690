import { categoriesAdminRoutes } from './categories.routes.js'
import { type CategoriesDeps, CategoriesService } from './categories.service.js'

/** The categories feature: its service, and its admin API routes (the /v1 scope registers its public routes). */
export function createCategories(deps: CategoriesDeps) {
  return { service: new CategoriesService(deps), adminRoutes: categoriesAdminRoutes }
}

export type Categories = ReturnType<typeof createCategories>
