import type { ChannelRecord, DeviceRecord, ItemRecord, MessageRecord, SubscriptionRecord, TokenRecord, UserRecord } from './model'

/**
 * Every change to the server's data goes through this interface, so a fault can wrap it and a test can
 * snapshot it. It is synchronous on purpose: each handler's check-then-act runs without interleaving,
 * which keeps uniqueness and idempotency rules atomic without locks.
 *
 * Records handed out are the stored ones and must be treated as read-only; change them only through
 * the mutating methods.
 */
export interface Store {
  // users and their devices
  /** false when the user name is taken (case-insensitive) within the user's application. */
  addUser(user: UserRecord): boolean
  getUser(userId: string): Readonly<UserRecord> | undefined
  findUserByName(clientId: string, userName: string): Readonly<UserRecord> | undefined
  /** In creation order. */
  listUsers(clientId: string): readonly Readonly<UserRecord>[]
  /** Idempotent per (user, device id). */
  registerDevice(userId: string, deviceId: string, at: number): void
  listDevices(userId: string): readonly Readonly<DeviceRecord>[]

  // tokens
  addToken(token: TokenRecord): void
  getToken(token: string): Readonly<TokenRecord> | undefined
  /** Drops tokens expired at `now`; returns how many. */
  pruneTokens(now: number): number

  // channels and their tags
  /** false when the name is taken: among public channels, or among the owner's private channels. */
  addChannel(channel: ChannelRecord): boolean
  getChannel(channelId: string): Readonly<ChannelRecord> | undefined
  findPublicChannel(name: string): Readonly<ChannelRecord> | undefined
  findPrivateChannel(ownerId: string, name: string): Readonly<ChannelRecord> | undefined
  /** In creation order. */
  listPublicChannels(): readonly Readonly<ChannelRecord>[]
  /** Removes the channel with its items, tags and subscriptions. */
  deleteChannel(channelId: string): boolean
  /** Returns the number of tags that were new. */
  addTags(channelId: string, tags: readonly string[], at: number): number
  removeTag(channelId: string, tag: string, at: number): boolean
  /** Returns the number of tags removed. */
  clearTags(channelId: string, at: number): number

  // subscriptions
  findSubscription(channelId: string, userId: string): Readonly<SubscriptionRecord> | undefined
  addSubscription(subscription: SubscriptionRecord): void
  /** In subscription order. */
  listSubscriptions(channelId: string): readonly Readonly<SubscriptionRecord>[]
  /** Returns the number of subscriptions removed. */
  removeSubscriptions(channelId: string, userId: string): number

  // items
  /** Stores the item, then evicts the oldest items beyond `maxItems` (-1: none); returns the evicted ids. */
  addItem(item: ItemRecord, maxItems: number): string[]
  getItem(channelId: string, itemId: string): Readonly<ItemRecord> | undefined
  /** Oldest first: by publish time, items of the same millisecond in insertion order. */
  listItems(channelId: string): readonly Readonly<ItemRecord>[]
  deleteItem(channelId: string, itemId: string): boolean
  /** Returns the number of items removed. */
  clearItems(channelId: string): number

  // direct messages
  addMessage(message: MessageRecord): void
  getMessage(messageId: string): Readonly<MessageRecord> | undefined

  /** A deep, JSON-safe copy of everything stored, for tests that check a refusal changed nothing. */
  snapshot(): StoreSnapshot
}

export interface StoreSnapshot {
  users: UserRecord[]
  devices: DeviceRecord[]
  tokens: TokenRecord[]
  channels: ChannelRecord[]
  subscriptions: SubscriptionRecord[]
  items: ItemRecord[]
  messages: MessageRecord[]
}

const key = (name: string): string => name.toLowerCase()
// '\n' cannot occur in a user id or a channel name, so the pair key is unambiguous.
const pairKey = (a: string, b: string): string => `${a}\n${b}`

/** The in-memory store. Channel and user names are matched ignoring case, kept as given. */
export class MemoryStore implements Store {
  private readonly users = new Map<string, UserRecord>()
  private readonly userByName = new Map<string, string>()
  private readonly devices = new Map<string, DeviceRecord[]>()
  private readonly tokens = new Map<string, TokenRecord>()
  private readonly channels = new Map<string, ChannelRecord>()
  private readonly publicByName = new Map<string, string>()
  private readonly privateByName = new Map<string, string>()
  private readonly subscriptions = new Map<string, SubscriptionRecord[]>()
  /** Per channel, sorted oldest first (see listItems). */
  private readonly items = new Map<string, ItemRecord[]>()
  private readonly itemById = new Map<string, ItemRecord>()
  private readonly messages = new Map<string, MessageRecord>()

  addUser(user: UserRecord): boolean {
    const k = pairKey(user.clientId, key(user.userName))
    if (this.userByName.has(k)) return false
    this.users.set(user.userId, user)
    this.userByName.set(k, user.userId)
    return true
  }

  getUser(userId: string): UserRecord | undefined {
    return this.users.get(userId)
  }

  findUserByName(clientId: string, userName: string): UserRecord | undefined {
    const id = this.userByName.get(pairKey(clientId, key(userName)))
    return id === undefined ? undefined : this.users.get(id)
  }

  listUsers(clientId: string): UserRecord[] {
    return [...this.users.values()].filter((u) => u.clientId === clientId)
  }

  registerDevice(userId: string, deviceId: string, at: number): void {
    const list = this.devices.get(userId) ?? []
    if (list.some((d) => d.deviceId === deviceId)) return
    list.push({ userId, deviceId, registeredAt: at })
    this.devices.set(userId, list)
  }

  listDevices(userId: string): DeviceRecord[] {
    return this.devices.get(userId) ?? []
  }

  addToken(token: TokenRecord): void {
    this.tokens.set(token.token, token)
  }

  getToken(token: string): TokenRecord | undefined {
    return this.tokens.get(token)
  }

  pruneTokens(now: number): number {
    let n = 0
    for (const [k, t] of this.tokens) {
      if (t.expiresAt <= now) {
        this.tokens.delete(k)
        n++
      }
    }
    return n
  }

  private nameKey(c: Pick<ChannelRecord, 'privateChannel' | 'ownerId' | 'name'>): string {
    return c.privateChannel ? pairKey(c.ownerId, key(c.name)) : key(c.name)
  }

  private nameIndex(privateChannel: boolean): Map<string, string> {
    return privateChannel ? this.privateByName : this.publicByName
  }

  addChannel(channel: ChannelRecord): boolean {
    const index = this.nameIndex(channel.privateChannel)
    const k = this.nameKey(channel)
    if (index.has(k)) return false
    index.set(k, channel.channelId)
    this.channels.set(channel.channelId, channel)
    return true
  }

  getChannel(channelId: string): ChannelRecord | undefined {
    return this.channels.get(channelId)
  }

  findPublicChannel(name: string): ChannelRecord | undefined {
    const id = this.publicByName.get(key(name))
    return id === undefined ? undefined : this.channels.get(id)
  }

  findPrivateChannel(ownerId: string, name: string): ChannelRecord | undefined {
    const id = this.privateByName.get(pairKey(ownerId, key(name)))
    return id === undefined ? undefined : this.channels.get(id)
  }

  listPublicChannels(): ChannelRecord[] {
    return [...this.channels.values()].filter((c) => !c.privateChannel)
  }

  deleteChannel(channelId: string): boolean {
    const channel = this.channels.get(channelId)
    if (!channel) return false
    this.clearItems(channelId)
    this.items.delete(channelId)
    this.subscriptions.delete(channelId)
    this.nameIndex(channel.privateChannel).delete(this.nameKey(channel))
    this.channels.delete(channelId)
    return true
  }

  addTags(channelId: string, tags: readonly string[], at: number): number {
    const channel = this.channels.get(channelId)
    if (!channel) return 0
    const fresh = [...new Set(tags)].filter((t) => !channel.tags.includes(t))
    if (fresh.length > 0) {
      channel.tags.push(...fresh)
      channel.modifiedAt = at
    }
    return fresh.length
  }

  removeTag(channelId: string, tag: string, at: number): boolean {
    const channel = this.channels.get(channelId)
    const i = channel ? channel.tags.indexOf(tag) : -1
    if (!channel || i < 0) return false
    channel.tags.splice(i, 1)
    channel.modifiedAt = at
    return true
  }

  clearTags(channelId: string, at: number): number {
    const channel = this.channels.get(channelId)
    if (!channel || channel.tags.length === 0) return 0
    const n = channel.tags.length
    channel.tags = []
    channel.modifiedAt = at
    return n
  }

  findSubscription(channelId: string, userId: string): SubscriptionRecord | undefined {
    return this.subscriptions.get(channelId)?.find((s) => s.userId === userId)
  }

  addSubscription(subscription: SubscriptionRecord): void {
    const list = this.subscriptions.get(subscription.channelId) ?? []
    list.push(subscription)
    this.subscriptions.set(subscription.channelId, list)
  }

  listSubscriptions(channelId: string): SubscriptionRecord[] {
    return this.subscriptions.get(channelId) ?? []
  }

  removeSubscriptions(channelId: string, userId: string): number {
    const list = this.subscriptions.get(channelId)
    if (!list) return 0
    const kept = list.filter((s) => s.userId !== userId)
    this.subscriptions.set(channelId, kept)
    return list.length - kept.length
  }

  addItem(item: ItemRecord, maxItems: number): string[] {
    const channel = this.channels.get(item.channelId)
    if (!channel) return []
    const list = this.items.get(item.channelId) ?? []
    // Insert after every item published at or before this one: same-millisecond items keep insertion
    // order, and an injected clock that goes backwards still yields a time-ordered list.
    let at = list.length
    while (at > 0 && list[at - 1]!.publishedAt > item.publishedAt) at--
    list.splice(at, 0, item)
    this.items.set(item.channelId, list)
    this.itemById.set(item.itemId, item)
    if (channel.lastPublishedAt === null || item.publishedAt > channel.lastPublishedAt) {
      channel.lastPublishedAt = item.publishedAt
    }
    const evicted: string[] = []
    if (maxItems >= 0) {
      while (list.length > maxItems) {
        const oldest = list.shift()!
        this.itemById.delete(oldest.itemId)
        evicted.push(oldest.itemId)
      }
    }
    return evicted
  }

  getItem(channelId: string, itemId: string): ItemRecord | undefined {
    const item = this.itemById.get(itemId)
    return item && item.channelId === channelId ? item : undefined
  }

  listItems(channelId: string): ItemRecord[] {
    return this.items.get(channelId) ?? []
  }

  deleteItem(channelId: string, itemId: string): boolean {
    const item = this.getItem(channelId, itemId)
    if (!item) return false
    const list = this.items.get(channelId)!
    list.splice(list.indexOf(item), 1)
    this.itemById.delete(itemId)
    return true
  }

  clearItems(channelId: string): number {
    const list = this.items.get(channelId) ?? []
    for (const item of list) this.itemById.delete(item.itemId)
    this.items.set(channelId, [])
    return list.length
  }

  addMessage(message: MessageRecord): void {
    this.messages.set(message.messageId, message)
  }

  getMessage(messageId: string): MessageRecord | undefined {
    return this.messages.get(messageId)
  }

  snapshot(): StoreSnapshot {
    return structuredClone({
      users: [...this.users.values()],
      devices: [...this.devices.values()].flat(),
      tokens: [...this.tokens.values()],
      channels: [...this.channels.values()],
      subscriptions: [...this.subscriptions.values()].flat(),
      items: [...this.items.values()].flat(),
      messages: [...this.messages.values()],
    })
  }
}
