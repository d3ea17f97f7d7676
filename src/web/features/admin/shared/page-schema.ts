import { z } from 'zod'

/** The admin lists add whether `total` was counted (true) or estimated (false, for very large tables). */
export const totalExactShape = { totalExact: z.boolean().optional() }
