import { useState } from 'preact/hooks'

/** The state of a page's edit dialog: which item it edits, if any. */
export interface EditDialog<T> {
  editing: T | null
  edit: (item: T) => void
  /** The dialog's `onDone`: closes it, and hands the item as saved (none when cancelled or unchanged) to `saved`. */
  done: (changed?: T) => void
}

export function useEditDialog<T>(saved: (changed: T) => void): EditDialog<T> {
  const [editing, setEditing] = useState<T | null>(null)
  return {
    editing,
    edit: setEditing,
    done: (changed) => {
      setEditing(null)
      if (changed) saved(changed)
    },
  }
}

/** A list's update that puts `changed` in place of the item with its id. */
export function replacing<T extends { id: number }>(changed: T): (items: T[]) => T[] {
  return (items) => items.map((item) => (item.id === changed.id ? changed : item))
}
