import type { z } from 'zod'
import { type Profile, profileUpdateInputSchema } from '@/domain/contracts/billing'
import type { ServerFieldMap } from '@/web/lib/form-errors'

/** The profile form validates with the request contract itself: its fields are the body's (snake_case) names. */
export const profileFormSchema = profileUpdateInputSchema
export type ProfileFormInput = z.input<typeof profileFormSchema>
export type ProfileFormOutput = z.output<typeof profileFormSchema>

/** The form starts from the stored profile (the e-mail and the number are shown, not edited here). */
export function profileFormDefaults(profile: Pick<Profile, 'name' | 'companyName'>): ProfileFormInput {
  return { name: profile.name, company_name: profile.companyName }
}

/** A validation issue on a body field goes to the field of the same name. */
export const profileServerFields: ServerFieldMap<keyof ProfileFormInput> = {
  fields: { name: 'name', company_name: 'company_name' },
}
