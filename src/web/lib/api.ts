import type { z } from 'zod'

/** A non-2xx answer of our API: `code` is stable, `detail` is the Portuguese text to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: Array<{ path: string; message: string }> = [],
    /** false when the answer carried no message of ours (a proxy's error page, an empty body): `detail` is generic. */
    readonly hasServerMessage = true,
  ) {
    super(detail)
    this.name = 'ApiError'
  }
}

const networkErrorText = 'Não foi possível falar com o servidor. Verifique sua conexão e tente novamente.'

async function request<T>(method: string, url: string, body: unknown, schema?: z.ZodType<T>): Promise<T> {
  let response: Response
  try {
    response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers:
        body === undefined
          ? { accept: 'application/json' }
          : { 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    throw new ApiError(0, 'network_error', networkErrorText)
  }
  const text = await response.text()
  let data: unknown = null
  if (text) {
    try {
      data = JSON.parse(text)
    } catch {
      data = null
    }
  }
  if (!response.ok) {
    const problem = (data ?? {}) as { code?: unknown; detail?: unknown; message?: unknown; errors?: unknown }
    const detail =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.message === 'string'
          ? problem.message
          : 'Ocorreu um erro desconhecido'
    const errors = Array.isArray(problem.errors) ? (problem.errors as Array<{ path: string; message: string }>) : []
    const hasServerMessage = typeof problem.detail === 'string' || typeof problem.message === 'string'
    throw new ApiError(
      response.status,
      typeof problem.code === 'string' ? problem.code : 'unknown',
      detail,
      errors,
      hasServerMessage,
    )
  }
  return schema ? schema.parse(data) : (data as T)
}

export const api = {
  get: <T>(url: string, schema: z.ZodType<T>) => request<T>('GET', url, undefined, schema),
  post: <T>(url: string, body: unknown, schema: z.ZodType<T>) => request<T>('POST', url, body, schema),
  put: <T>(url: string, body: unknown, schema: z.ZodType<T>) => request<T>('PUT', url, body, schema),
  patch: <T>(url: string, body: unknown, schema: z.ZodType<T>) => request<T>('PATCH', url, body, schema),
  delete: <T>(url: string, schema: z.ZodType<T>) => request<T>('DELETE', url, undefined, schema),
  /**
   * The one exception to parsing: the reads every public page makes (session, site configuration, plans on sale) and
   * the bare `{ ok }` of sign-out are typed, not parsed, so the public pages ship without zod (the performance
   * budget). They come from our own server, which validates them against the same contracts on the way out.
   */
  public: {
    get: <T>(url: string) => request<T>('GET', url, undefined),
    post: <T>(url: string, body: unknown) => request<T>('POST', url, body),
  },
}
