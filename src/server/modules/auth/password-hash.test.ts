import { scryptAsync } from '@noble/hashes/scrypt.js'
import { hashPassword as betterAuthHash, verifyPassword as betterAuthVerify } from 'better-auth/crypto'
import { and, eq } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { accounts, profiles, sessions } from '../../db/schema/auth'
import { fileTestApp, ipSource, postFrom } from '../../test/http'
import { createUser } from '../../test/users'
import { hashPassword, passwordHashing, passwordHashingStats, scryptParams, verifyPassword } from './password-hash'

const t = fileTestApp()
const nextIp = ipSource(231)
const password = 'senha-segura-123'

describe('password hashing compatible with better-auth', () => {
  it("verifies better-auth's own hashes, and better-auth verifies ours", async () => {
    const theirs = await betterAuthHash(password)
    expect(await verifyPassword({ hash: theirs, password })).toBe(true)
    expect(await verifyPassword({ hash: theirs, password: 'senha-errada-123' })).toBe(false)

    const ours = await hashPassword(password)
    expect(ours).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/)
    expect(await betterAuthVerify({ hash: ours, password })).toBe(true)
    expect(await betterAuthVerify({ hash: ours, password: 'senha-errada-123' })).toBe(false)
  })

  it('derives the same key as the pure-JS scrypt of the other runtimes, with the password in NFKC', async () => {
    // 'é' composed and decomposed are the same password once normalized, as in better-auth.
    const ours = await hashPassword('café-com-leite')
    expect(await verifyPassword({ hash: ours, password: 'cafe\u0301-com-leite' })).toBe(true)
    const [salt, key] = ours.split(':')
    const noble = await scryptAsync('café-com-leite'.normalize('NFKC'), salt ?? '', {
      N: scryptParams.N,
      r: scryptParams.r,
      p: scryptParams.p,
      dkLen: scryptParams.dkLen,
      maxmem: 128 * scryptParams.N * scryptParams.r * 2,
    })
    expect(Buffer.from(noble).toString('hex')).toBe(key)
  })

  it('refuses a malformed hash like the default and a key of another length without comparing', async () => {
    await expect(verifyPassword({ hash: 'sem-dois-pontos', password })).rejects.toThrow('Invalid password hash')
    const [salt] = (await hashPassword(password)).split(':')
    expect(await verifyPassword({ hash: `${salt}:abcd`, password })).toBe(false)
  })

  it('runs at most `concurrency` hashes at once; the rest wait in line and all finish', async () => {
    const calls = Array.from({ length: passwordHashing.concurrency + 3 }, () => hashPassword(password))
    expect(passwordHashingStats()).toMatchObject({ running: passwordHashing.concurrency, waiting: 3 })
    const hashes = await Promise.all(calls)
    expect(new Set(hashes).size).toBe(hashes.length)
    expect(passwordHashingStats()).toMatchObject({ running: 0, waiting: 0 })
  })
})

describe('sign-in through the API with our hashing', () => {
  const maxWaiting = passwordHashing.maxWaiting
  afterEach(() => {
    passwordHashing.maxWaiting = maxWaiting
  })

  it('stores a hash better-auth verifies, and signs in with it', async () => {
    // createUser signs up and signs in through the API (it fails on anything but 200).
    const user = await createUser(t)
    const [row] = await t.database.db
      .select({ hash: accounts.password })
      .from(accounts)
      .innerJoin(profiles, eq(profiles.id, accounts.userId))
      .where(and(eq(profiles.email, user.email), eq(accounts.providerId, 'credential')))
    expect(await betterAuthVerify({ hash: row?.hash ?? '', password })).toBe(true)
    const wrong = await postFrom(t.app, '/api/auth/sign-in', { email: user.email, password: 'errada-123' }, nextIp())
    expect(wrong.statusCode).toBe(401)
  })

  it('answers 503 with Retry-After, and makes no session, when the line of password checks is too long', async () => {
    const user = await createUser(t)
    const before = await t.database.db.select().from(sessions).where(eq(sessions.userId, user.id))
    passwordHashing.maxWaiting = 0 // every caller that would have to wait is refused
    const answers = await Promise.all(
      Array.from({ length: passwordHashing.concurrency + 2 }, () =>
        postFrom(t.app, '/api/auth/sign-in', { email: user.email, password }, nextIp()),
      ),
    )
    const refused = answers.filter((a) => a.statusCode === 503)
    const signedIn = answers.filter((a) => a.statusCode === 200)
    expect(refused.length).toBeGreaterThan(0)
    expect(signedIn.length + refused.length).toBe(answers.length)
    expect(refused[0]?.headers['retry-after']).toBe('5')
    expect(refused[0]?.json()).toMatchObject({
      code: 'service_unavailable',
      message: 'Serviço temporariamente indisponível. Tente novamente em instantes.',
    })
    const after = await t.database.db.select().from(sessions).where(eq(sessions.userId, user.id))
    expect(after.length - before.length).toBe(signedIn.length)
  })
})
