/** The mean radius of the Earth (IUGG), in metres. */
const EARTH_RADIUS_M = 6_371_008.8

export const METRES_PER = { km: 1000, mi: 1609.344 } as const
export type DistanceUnit = keyof typeof METRES_PER

export interface Point {
  latitude: number
  longitude: number
}

/** The great-circle distance between two points, in metres (haversine). */
export function metresBetween(a: Point, b: Point): number {
  const radians = Math.PI / 180
  const dLat = (b.latitude - a.latitude) * radians
  const dLon = (b.longitude - a.longitude) * radians
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * radians) * Math.cos(b.latitude * radians) * Math.sin(dLon / 2) ** 2
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)))
}
