import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** Random bytes drawn a few kilobytes at a time: one system call per 256 ids, not one per id. */
let pool = Buffer.alloc(0)
let used = 0

/** Ids of users, channels, items, messages, subscriptions, pushes and tokens: 32 lowercase hex characters. */
export function newId(): string {
  if (used + 16 > pool.length) {
    pool = randomBytes(4096)
    used = 0
  }
  used += 16
  return pool.toString('hex', used - 16, used)
}

/**
 * Passwords are kept as a salted SHA-256, so a snapshot or a heap dump shows no password. This is not a
 * password KDF (no work factor): the server is a reference for tests, and sign-in must stay cheap.
 */
export function hashPassword(password: string, salt: string): string {
  return createHash('sha256').update(salt).update('\0').update(password).digest('hex')
}

/** Constant-time comparison of two strings (of any length), for secrets. */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest()
  const db = createHash('sha256').update(b).digest()
  return timingSafeEqual(da, db)
}
