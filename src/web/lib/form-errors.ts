import { ApiError } from './api'

export type ServerFieldMap<F extends string> = {
  /** The API's field names (the first segment of a validation issue's path) → the form's. */
  fields?: Partial<Record<string, F>>
  /** Error codes the form shows on one field, with the server's `detail` (e.g. email_taken → email). */
  codes?: Partial<Record<string, F>>
}

/**
 * The one mapping from a problem+json error to form fields: a listed code puts the server's text on its field, and
 * each validation issue (`errors: [{ path, message }]`) whose first path segment is a known API field puts its
 * message on the form field. Anything else (another code, a network error) yields nothing: the toast covers it.
 */
export function serverFieldErrors<F extends string>(
  error: unknown,
  map: ServerFieldMap<F>,
): Array<{ field: F; message: string }> {
  if (!(error instanceof ApiError)) return []
  const found: Array<{ field: F; message: string }> = []
  const byCode = map.codes?.[error.code]
  if (byCode) found.push({ field: byCode, message: error.detail })
  for (const { path, message } of error.errors) {
    const field = map.fields?.[path.replace(/^\//, '').split(/[./]/)[0] ?? '']
    if (field) found.push({ field, message })
  }
  return found
}

/**
 * Puts a server error on the form (react-hook-form's `setError`); `focus` moves the focus to the first field named.
 * Returns whether any field got a message.
 */
export function applyServerErrors<F extends string>(
  error: unknown,
  setError: (field: F, error: { message: string }, options?: { shouldFocus: boolean }) => void,
  map: ServerFieldMap<F>,
  { focus = false }: { focus?: boolean } = {},
): boolean {
  const found = serverFieldErrors(error, map)
  found.forEach(({ field, message }, index) => {
    setError(field, { message }, { shouldFocus: focus && index === 0 })
  })
  return found.length > 0
}
