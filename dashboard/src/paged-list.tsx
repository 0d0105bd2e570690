import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, messageOf, type NextPage, type Page } from './api'

/** A list read page by page from an admin API list operation, following its `Link: rel="next"`. */
export interface PagedList<T> {
  /** Null while the first page loads. */
  items: T[] | null
  /** The query of the next page, when there is one. */
  next: NextPage | null
  loadingMore: boolean
  error: ComponentChildren
  setError: (error: ComponentChildren) => void
  /** Changes the items shown (after a change made in the page). */
  update: (change: (items: T[]) => T[]) => void
  more: () => Promise<void>
}

/**
 * A list read with `load`: its first page (`next` null), read again whenever `key` changes (the
 * query, as text), then each next page the API links to.
 */
export function usePagedList<T>(key: string, load: (next: NextPage | null) => Promise<Page<T>>): PagedList<T> {
  const [items, setItems] = useState<T[] | null>(null)
  const [next, setNext] = useState<NextPage | null>(null)
  const [loadingMore, setLoadingMore] = useState(false)
  const [error, setError] = useState<ComponentChildren>(null)
  useEffect(() => {
    let current = true
    setItems(null)
    setNext(null)
    setError(null)
    load(null).then(
      (first) => {
        if (!current) return
        setItems(first.items)
        setNext(first.next)
      },
      (caught: unknown) => {
        if (current) setError(messageOf(caught))
      },
    )
    // A page that answers after the query changed is not this list's.
    return () => {
      current = false
    }
  }, [key])
  const more = async () => {
    if (!next) return
    setLoadingMore(true)
    setError(null)
    try {
      const following = await load(next)
      setItems((list) => [...(list ?? []), ...following.items])
      setNext(following.next)
    } catch (caught) {
      setError(messageOf(caught))
    } finally {
      setLoadingMore(false)
    }
  }
  return { items, next, loadingMore, error, setError, update: (change) => setItems((list) => change(list ?? [])), more }
}

/**
 * Removes an item of the list with `call` and says so (`say`); on failure, the list's error is
 * the page's own explanation when the API refused with `refusal.code`, else the API's message.
 */
export async function removeFromList<T extends { id: number; name: string }>(
  list: PagedList<T>,
  item: T,
  call: () => Promise<unknown>,
  say: (status: string | null) => void,
  refusal: { code: string; explanation: ComponentChildren },
): Promise<void> {
  list.setError(null)
  say(null)
  try {
    await call()
    list.update((items) => items.filter((other) => other.id !== item.id))
    say(`${item.name} is removed.`)
  } catch (caught) {
    list.setError(caught instanceof ApiError && caught.code === refusal.code ? refusal.explanation : messageOf(caught))
  }
}

/** "More …" while the list has a next page; once more than a page was read and none is left, says so. */
export function MoreButton<T>({ list, pageSize, label, none }: { list: PagedList<T>; pageSize: number; label: string; none: string }) {
  const count = list.items?.length ?? 0
  if (count > 0 && list.next) {
    return (
      <button type="button" onClick={() => void list.more()} disabled={list.loadingMore}>
        {list.loadingMore ? 'Loading…' : label}
      </button>
    )
  }
  return count > pageSize ? <p class="muted">{none}</p> : null
}
