/** Server tests run on PGlite, or on PostgreSQL when TEST_DATABASE_URL names a server (CI runs both). */
export function testDatabaseUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_URL?.trim()
  return url ? url : undefined
}

export const templateDatabaseName = 'billing_test_template'
