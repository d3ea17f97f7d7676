import type { Executor } from '../../db/client'
import { insertJsonRows } from '../../db/json-rows'
import { auditLog } from '../../db/schema/platform'

export type Actor = { id: string; roleId: number } | { id: null; roleId: 0; system: string }

export const systemActor = (system: string): Actor => ({ id: null, roleId: 0, system })

/** One row per state change that moves money or access: who, what, before, after, when. */
export async function audit(
  tx: Executor,
  actor: Actor,
  action: string,
  entity: string,
  entityId: string,
  change: { before?: unknown; after?: unknown } = {},
): Promise<void> {
  await tx.insert(auditLog).values({
    actorId: actor.id,
    action,
    entity,
    entityId,
    before: change.before ?? null,
    after: change.after ?? ('system' in actor ? { by: actor.system } : null),
  })
}

/**
 * audit() for many entities in one INSERT (a lifecycle pass's batch): the same rows, in the given order, sent as one
 * JSON parameter (db/json-rows.ts).
 */
export async function auditMany(
  tx: Executor,
  actor: Actor,
  rows: { action: string; entity: string; entityId: string; before?: unknown; after?: unknown }[],
): Promise<void> {
  if (rows.length === 0) return
  await tx.execute(
    insertJsonRows(
      auditLog,
      rows.map((r) => ({
        actorId: actor.id,
        action: r.action,
        entity: r.entity,
        entityId: r.entityId,
        before: r.before ?? null,
        after: r.after ?? ('system' in actor ? { by: actor.system } : null),
      })),
    ),
  )
}
