import type { ServerContext } from './context'
import { fail } from './errors'
import type { ChannelRecord } from './model'
import { CHANNEL_NAMES } from './schemas'

/**
 * Channel addressing (§2.3). `<userId>#<name>` (sent as `%23` in a path) is that user's private channel.
 * A plain name means, for most operations, the caller's own private channel of that name if there is
 * one, else the public channel of that name. Operations that take `personal` pick instead: true the
 * caller's own private channel, false the public one.
 */
export type Addressing = { mode: 'visible' } | { mode: 'personal'; personal: boolean }

export const VISIBLE: Addressing = { mode: 'visible' }
export const personal = (value: boolean): Addressing => ({ mode: 'personal', personal: value })

export interface ChannelRef {
  ownerId: string | null
  name: string
}

/** Splits a path segment into owner and name; a malformed name (by `names`, the server's rule) is a 400, not a 404. */
export function parseChannelRef(raw: string, names: ServerContext['channelNames'] = CHANNEL_NAMES): ChannelRef {
  const hash = raw.indexOf('#')
  const ownerId = hash < 0 ? null : raw.slice(0, hash)
  const name = hash < 0 ? raw : raw.slice(hash + 1)
  if (!names.pattern.test(name)) throw fail('INVALID_CHANNEL_NAME', names.rule)
  return { ownerId, name }
}

/** The channel a path segment addresses for `callerId`, or 404. */
export function resolveChannel(ctx: ServerContext, callerId: string, raw: string, addressing: Addressing = VISIBLE): Readonly<ChannelRecord> {
  const { ownerId, name } = parseChannelRef(raw, ctx.channelNames)
  const { store } = ctx
  let channel: Readonly<ChannelRecord> | undefined
  if (ownerId !== null) {
    channel = store.findPrivateChannel(ownerId, name)
  } else if (addressing.mode === 'personal') {
    channel = addressing.personal ? store.findPrivateChannel(callerId, name) : store.findPublicChannel(name)
  } else {
    channel = store.findPrivateChannel(callerId, name) ?? store.findPublicChannel(name)
  }
  if (!channel) throw fail('CHANNEL_NOT_FOUND', `channel ${raw} not found`)
  return channel
}

/** Owner-only operations: 403 for anyone else. */
export function assertOwner(channel: Readonly<ChannelRecord>, callerId: string): void {
  if (channel.ownerId !== callerId) throw fail('NOT_OWNER')
}
