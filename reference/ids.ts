import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** Ids of users, channels, items, messages, subscriptions, pushes and tokens: 32 lowercase hex characters. */
export function newId(): string {
  return randomBytes(16).toString('hex')
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
