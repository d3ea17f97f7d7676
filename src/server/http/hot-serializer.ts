// The serializer of the hottest reads (the session call, the customer's two lists): their 200 answers are built
// field by field by our own typed mappers (session.ts toSessionUser, billing/customer-lists.repo.ts), so in production
// they are sent with JSON.stringify, without zod encoding them again on every request. Outside production (tests,
// development) each answer is still checked against its contract, as every other route's is; other statuses always.
import type { FastifySerializerCompiler } from 'fastify'
import { serializerCompiler } from 'fastify-type-provider-zod'

export function hotSerializer(production: boolean): FastifySerializerCompiler<unknown> {
  return (route) =>
    production && String(route.httpStatus) === '200'
      ? (data: unknown) => JSON.stringify(data)
      : serializerCompiler(route as Parameters<typeof serializerCompiler>[0])
}
