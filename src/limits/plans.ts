import { type Plan, PLANS } from '../db/schema.js'


export interface PlanLimits {
  perMinute: number
  perDay: number
}

/** Request limits of the fixed plans; enterprise limits are set per project. */
export const PLAN_LIMITS: Readonly<Record<Exclude<Plan, 'enterprise'>, PlanLimits>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
}

/**
 * Webhook endpoints a project may have, by plan: a few receivers (an app, a queue, a chat
 * integration) on free, more as the plan grows; each one is a delivery per event.
 */
export const WEBHOOK_ENDPOINT_LIMITS: Readonly<Record<Plan, number>> = {
  free: 3,
  pro: 10,
  business: 25,
  enterprise: 50,
}

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value)
}

/** The limits in force for a project row (enterprise rows carry their own). */
export function limitsOf(project: { plan: Plan; per_minute: number | null; per_day: number | null }): PlanLimits {
  if (project.plan === 'enterprise') {
    return { perMinute: project.per_minute ?? 0, perDay: project.per_day ?? 0 }
  }
  return PLAN_LIMITS[project.plan]
}
