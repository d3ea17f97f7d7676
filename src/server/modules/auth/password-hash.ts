// Password hashing for better-auth (its `emailAndPassword.password` option): the same scrypt, parameters and
// encoding as better-auth's default (@better-auth/utils/password: N=16384, r=16, p=1, 64-byte key, the salt's hex
// text as the salt, `salt:key` in hex), so every stored hash keeps verifying both ways. What it adds:
// - at most `passwordHashing.concurrency` hashes run at once. Each takes 32 MiB and a whole core for tens of
//   milliseconds (hundreds on a busy machine) in libuv's thread pool, which also compresses responses and reads
//   files: without a bound, 200 sign-ins at once take every thread and every core, and every other request waits
//   behind them (seen in bench/load.bench.ts: GET /api/plans at 15 s);
// - the others wait in line, first come first served; when `maxWaiting` are already waiting (about 2.5 s of work on
//   an idle machine at ~80 ms a hash), the call fails at once with 503 `service_unavailable` (Retry-After: 5,
//   http/problem.ts) instead of a sign-in that would time out anyway. The bound is a count, not a time: a burst of
//   sign-ins on a slow or busy machine waits longer but is not refused;
// - the comparison is constant-time (timingSafeEqual), where the default compares strings.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { DomainError } from '../../../domain/errors'

/** better-auth's scrypt parameters: changing any of them makes every stored password fail. */
export const scryptParams = { N: 16384, r: 16, p: 1, dkLen: 64 } as const
const maxmem = 128 * scryptParams.N * scryptParams.r * 2

export const passwordHashing = {
  /** Half the cores, at least 1 and at most 2 (libuv's pool has 4 threads: 2 stay free for zlib and files). */
  concurrency: Math.max(1, Math.min(2, Math.floor(availableParallelism() / 2))),
  /** Callers waiting for their turn beyond which a new one is answered 503 at once. */
  maxWaiting: 32,
}

function deriveKey(password: string, salt: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      scryptParams.dkLen,
      { N: scryptParams.N, r: scryptParams.r, p: scryptParams.p, maxmem },
      (error, key) => (error ? reject(error) : resolve(key)),
    )
  })
}

/** The line of hashes: `concurrency` at a time, the rest in order, refused when `maxWaiting` already wait. */
class HashQueue {
  private running = 0
  private readonly waiting: (() => void)[] = []

  constructor(private readonly limits: typeof passwordHashing) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (this.waiting.length >= this.limits.maxWaiting) throw new DomainError('service_unavailable')
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else this.running++
    try {
      return await work()
    } finally {
      const next = this.waiting.shift()
      // The slot passes straight to the next in line (running stays the same), or is given back.
      if (next) next()
      else this.running--
    }
  }

  get stats() {
    return { running: this.running, waiting: this.waiting.length }
  }
}

const queue = new HashQueue(passwordHashing)

/** Numbers for tests and diagnostics: hashes running now and waiting. */
export function passwordHashingStats() {
  return queue.stats
}

/** `salt:key`, both hex, exactly as better-auth's default writes it. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16).toString('hex')
  const key = await queue.run(() => deriveKey(password, salt))
  return `${salt}:${key.toString('hex')}`
}

/** True when `password` matches `hash` (better-auth's format); throws on a malformed hash, as the default does. */
export async function verifyPassword({ hash, password }: { hash: string; password: string }): Promise<boolean> {
  const [salt, key] = hash.split(':')
  if (!salt || !key) throw new Error('Invalid password hash')
  const derived = Buffer.from((await queue.run(() => deriveKey(password, salt))).toString('hex'))
  const expected = Buffer.from(key)
  return derived.length === expected.length && timingSafeEqual(derived, expected)
}
