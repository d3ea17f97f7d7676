import { isIP } from 'node:net'
import { DomainError, type DomainErrorCode } from '../../../domain/errors'
import type { Executor } from '../../db/client'
import { deleteWindowsBefore, incrementWindow, windowCount } from './rate-limit.repo'

export type RateRule = { limit: number; windowMs: number }

/** Named rules, so the README and the code agree on one table. */
export const rateRules = {
  signInPerIp: { limit: 30, windowMs: 15 * 60_000 },
  /** Wrong passwords for one account from one network: that pair is locked, nobody else is. */
  signInFailuresPerAccountAndIp: { limit: 10, windowMs: 15 * 60_000 },
  /** Wrong passwords for one account from everywhere: the whole account is locked and its owner told, once. */
  signInFailuresPerAccount: { limit: 100, windowMs: 60 * 60_000 },
  signUpPerIp: { limit: 10, windowMs: 60 * 60_000 },
  codeSendPerIp: { limit: 10, windowMs: 60 * 60_000 },
  codeVerifyPerIp: { limit: 30, windowMs: 60 * 60_000 },
  passwordResetPerIp: { limit: 10, windowMs: 60 * 60_000 },
  passwordResetPerAccount: { limit: 3, windowMs: 60 * 60_000 },
  resendVerificationPerIp: { limit: 10, windowMs: 60 * 60_000 },
  whatsappChangePerIp: { limit: 10, windowMs: 60 * 60_000 },
  whatsappChangePerUser: { limit: 10, windowMs: 60 * 60_000 },
} satisfies Record<string, RateRule>

/**
 * The requester part of every per-IP key: an IPv4 address as it is (an IPv4-mapped IPv6 address counts as its
 * IPv4 address), an IPv6 address as its /64 network, which one subscriber usually holds whole.
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)
  if (mapped?.[1]) return mapped[1]
  if (isIP(ip) !== 6) return ip
  const zoneless = ip.split('%')[0] ?? ip
  const [head = '', tail = ''] = zoneless.split('::')
  const headGroups = head ? head.split(':') : []
  let tailGroups = tail ? tail.split(':') : []
  // An embedded IPv4 tail (::1.2.3.4) is two groups; only the first four groups matter anyway.
  const last = tailGroups.at(-1)
  if (last?.includes('.')) tailGroups = [...tailGroups.slice(0, -1), '0', '0']
  const groups = zoneless.includes('::')
    ? [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups
  const prefix = groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g || '0', 16).toString(16))
    .join(':')
  return `${prefix}::/64`
}

function windowStartOf(rule: RateRule, now: Date): Date {
  return new Date(Math.floor(now.getTime() / rule.windowMs) * rule.windowMs)
}

/** Counts one hit in the key's current window and returns the new count (never throws). */
export function countHit(db: Executor, key: string, rule: RateRule, now: Date): Promise<number> {
  return incrementWindow(db, key, windowStartOf(rule, now))
}

/** The key's count in its current window, without counting anything. */
export function currentCount(db: Executor, key: string, rule: RateRule, now: Date): Promise<number> {
  return windowCount(db, key, windowStartOf(rule, now))
}

/**
 * Counts one hit in a fixed window shared by every API instance (the counter lives in the database,
 * incremented atomically by an upsert). Throws 'rate_limited' (or the given code) past the limit.
 */
export async function hitRateLimit(
  db: Executor,
  key: string,
  rule: RateRule,
  now: Date,
  code: DomainErrorCode = 'rate_limited',
): Promise<void> {
  if ((await countHit(db, key, rule, now)) > rule.limit) throw new DomainError(code)
}

/** Old windows are useless; the periodic maintenance pass removes them. */
export async function pruneRateLimits(db: Executor, now: Date): Promise<void> {
  await deleteWindowsBefore(db, new Date(now.getTime() - 24 * 60 * 60_000))
}
