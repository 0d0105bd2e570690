/**
 * What the editors send and how they read the API's refusals: a JSON Merge Patch of only what
 * changed, and an error tied to the field it names, so that the form can show it on that field.
 */
import { useState } from 'preact/hooks'
import { ApiError, messageOf } from './api'
import { type Submission, useSubmit } from './dialogs'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * RFC 7396, the other way: the patch that turns `before` into `after`. A member undefined on one
 * side is absent; one gone is `null`; objects are compared member by member, anything else whole.
 */
export function mergePatchOf(before: Json, after: Json): Json {
  const patch: Json = {}
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [was, is] = [before[name], after[name]]
    if (is === undefined) {
      if (was !== undefined) patch[name] = null
    } else if (isObject(was) && isObject(is)) {
      const inner = mergePatchOf(was, is)
      if (Object.keys(inner).length > 0) patch[name] = inner
    } else if (JSON.stringify(was) !== JSON.stringify(is)) {
      patch[name] = is
    }
  }
  return patch
}

/** What a form itself finds wrong before anything is sent: the field (as the API names it) and why. */
export class FieldProblem extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

/** What went wrong with a save: the message, and the field it names when it names one. */
export interface Problem {
  message: string
  field: string | null
}

/**
 * Anything a save threw, as a problem of a field: the API's 400s name the field they are about
 * (`Body field "birthDate" must be …`, `Field "videoUrls" holds …`); `fields` gives the field of
 * refusals by their code (`external_id_taken`: the external id).
 */
export function problemOf(caught: unknown, fields: Record<string, string> = {}): Problem {
  if (caught instanceof FieldProblem) return { message: caught.message, field: caught.field }
  const message = messageOf(caught)
  if (!(caught instanceof ApiError)) return { message, field: null }
  const field = fields[caught.code] ?? (caught.status === 400 ? /\bfield "([\w.]+)"/i.exec(message)?.[1] : undefined)
  return { message, field: field ?? null }
}

/** The message of `problem` for a control of `field` (or of a part of it: `breeds` for `breeds.primary`), else null. */
export function problemFor(problem: Problem | null, field: string): string | null {
  return problem?.field && (problem.field === field || problem.field.startsWith(`${field}.`)) ? problem.message : null
}

/**
 * A form's submission (see useSubmit) whose failure is also kept as a Problem, for the form to
 * show on the field it names; `fields` as for problemOf.
 */
export function useFieldSubmit(action: () => Promise<void>, fields: Record<string, string> = {}): { form: Submission; problem: Problem | null } {
  const [problem, setProblem] = useState<Problem | null>(null)
  const form = useSubmit(
    async () => {
      setProblem(null)
      await action()
    },
    (caught) => {
      const found = problemOf(caught, fields)
      setProblem(found)
      return found.message
    },
  )
  return { form, problem }
}
