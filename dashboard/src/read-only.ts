import { createContext } from 'preact'
import { useContext } from 'preact/hooks'

/**
 * Whether the signed-in user may only look (the viewer role): the admin API refuses their every
 * change, so the pages leave out the controls that could only fail.
 */
export const ReadOnly = createContext(false)

export function useReadOnly(): boolean {
  return useContext(ReadOnly)
}
