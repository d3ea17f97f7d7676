import { z } from 'zod'

/**
 * Every list endpoint pages on the server with these bounds: a page holds at most `maxPageSize` rows and
 * pages past `maxPage` are refused (deep OFFSET scans cost the database; narrow the search instead).
 */
export const listLimits = { defaultPageSize: 20, maxPageSize: 100, maxPage: 1000 } as const

/** `page` and `pageSize` query fields, shared by the customer's and the admin's lists. */
export const pageParams = {
  page: z.coerce
    .number()
    .int()
    .min(1)
    .max(listLimits.maxPage, `A página deve ser no máximo ${listLimits.maxPage}. Refine a busca.`)
    .default(1),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .max(listLimits.maxPageSize, `O tamanho da página deve ser no máximo ${listLimits.maxPageSize}.`)
    .default(listLimits.defaultPageSize),
}

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
  })
}
