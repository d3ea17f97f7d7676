import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { z } from 'zod'
import { adminUserPageSchema, adminUserSchema } from '@/domain/contracts/admin'
import { api } from '@/web/lib/api'
import { totalExactShape } from '@/web/features/admin/shared/page-schema'
import { toasts } from '@/web/lib/toasts'
import { withReauthentication } from '@/web/shared/auth/reauth'
import { sessionQuery } from '@/web/lib/session'

const pageSchema = adminUserPageSchema.extend(totalExactShape)
export type AdminUser = z.infer<typeof adminUserSchema>
export type PeopleKind = 'users' | 'customers'

/** GET /api/admin/users (everyone) or /api/admin/customers (role user). */
export function peopleQuery(kind: PeopleKind, apiQuery: string) {
  return queryOptions({
    queryKey: ['admin', kind, apiQuery],
    queryFn: () => api.get(`/api/admin/${kind}?${apiQuery}`, pageSchema),
    placeholderData: keepPreviousData,
  })
}

/** 'Tornar Admin' / 'Remover Admin': role_id 1 or 2. The server refuses to remove the last admin. */
export function useSetRole() {
  const queryClient = useQueryClient()
  return useMutation({
    // A role change needs the password again within 5 minutes: asked for in a dialog, then repeated.
    mutationFn: ({ user, roleId }: { user: AdminUser; roleId: 1 | 2 }) =>
      withReauthentication(() =>
        api.put(`/api/admin/users/${encodeURIComponent(user.id)}/role`, { role_id: roleId }, adminUserSchema),
      ),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['admin'] }),
        // Removing one's own admin role changes what the menu offers.
        queryClient.invalidateQueries({ queryKey: sessionQuery().queryKey }),
      ]),
    meta: { feedback: toasts.permissions },
  })
}
