// Rows billing tests start from (test-only helpers; nothing in the app imports this file).
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { payments, pixSettings, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { demoPixSettings, demoPlans } from '../../db/seed'
import type { TestApp } from '../../test/test-app'
import { createUser, type TestUser } from '../../test/users'

/** plan_basic R$ 99,00, plan_pro R$ 199,00, plan_business R$ 399,00, and an inactive plan_legacy R$ 499,00. */
export async function seedPlans(db: Db): Promise<void> {
  await db.insert(plans).values(demoPlans).onConflictDoNothing()
  await db
    .insert(plans)
    .values({ id: 'plan_legacy', name: 'Legado', priceCents: 49_900, active: false })
    .onConflictDoNothing()
}

export async function configurePix(db: Db, values: Partial<typeof pixSettings.$inferInsert> = {}): Promise<void> {
  const { id: _id, ...settings } = demoPixSettings
  await db
    .update(pixSettings)
    .set({ ...settings, ...values })
    .where(eq(pixSettings.id, 1))
}

/** A shop open for business: the plans seeded, PIX configured, and its admin signed in (who confirms payments). */
export async function openShop(t: TestApp, adminName = 'Admin'): Promise<TestUser> {
  await seedPlans(t.database.db)
  await configurePix(t.database.db)
  return createUser(t, { admin: true, name: adminName })
}

/** What the admin confirmation (another issue) will do: the invoice paid, the subscription active. */
export async function activate(db: Db, subscriptionId: string, paidAt: Date): Promise<void> {
  await db.update(subscriptions).set({ status: 'active' }).where(eq(subscriptions.id, subscriptionId))
  await db
    .update(payments)
    .set({ status: 'paid', paidAt, pixEndToEndId: `E${randomUUID().replaceAll('-', '')}`.slice(0, 32) })
    .where(eq(payments.subscriptionId, subscriptionId))
}

/** The subscription `id` as stored (a missing row fails the test). */
export async function storedSubscription(db: Db, id: string) {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.id, id))
  if (!row) throw new Error(`subscription ${id} is missing`)
  return row
}

/** The payment `id` as stored (a missing row fails the test). */
export async function storedPayment(db: Db, id: string) {
  const [row] = await db.select().from(payments).where(eq(payments.id, id))
  if (!row) throw new Error(`payment ${id} is missing`)
  return row
}
