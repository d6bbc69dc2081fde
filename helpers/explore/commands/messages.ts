/** Direct messages and push, only to the three accounts (§4.6, suites/direct-messages.test.ts, suites/push.test.ts). */
import fc from 'fast-check'
import type { AccountKey } from '../../config/config'
import { show } from '../../kit/expect'
import { noServerError, ok, schema } from '../judge'
import { Exec, success } from '../state'
import { account, Cmd, contentArb, patiently, PLAIN, plainContent, textArb, type Weighted, weighted } from './base'

class SendMessage extends Cmd {
  readonly slot = null
  /**
   * `to` may name an account twice: requested counts matched users (§4.3); whether a repeated id counts again
   * is not stated, so anything from the distinct users to the ids given is a reading.
   */
  constructor(
    public by: AccountKey,
    readonly to: AccountKey[],
    readonly receipt: boolean,
    readonly content: Record<string, string>,
    readonly metadata: boolean,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} sends a message to ${this.to.join(', ')} (receipt ${this.receipt}${this.metadata ? ', with metadata' : ''}) and reads its delivery status`
  }
  async exec(x: Exec): Promise<void> {
    const given = this.to.map((k) => x.userId(k))
    const ids = [...new Set(given)]
    const what = `${this.by} POST /messages/send_to_user_ids to ${this.to.join(', ')}`
    const ex = await x.call(
      this.by,
      (api) =>
        api.sendToUserIds({
          receipt: this.receipt,
          recipientUserIds: given,
          content: { ref: x.newRef(), ...this.content },
          ...(this.metadata ? { metadata: { source: 'explore' } } : {}),
        }),
      { variable: `MSG_${x.step}`, expr: 'j.sentList&&j.sentList[0]&&j.sentList[0].messageId' },
    )
    if (!success(ex) && !plainContent(this.content)) return noServerError(x, ex, 'messages.send.shape', what)
    ok(x, ex, 'messages.send.shape', what)
    const body = schema<{ count: { requested: number; sent: number; unsent: number }; sentList: { messageId: string; recipientUsername: string }[] }>(
      x,
      ex,
      'send-result',
      'messages.send.shape',
      what,
    )
    x.must(
      body.count.requested >= ids.length && body.count.requested <= given.length,
      'messages.send.requested',
      `${what}: /count/requested ${body.count.requested}, want ${ids.length === given.length ? ids.length : `${ids.length} (distinct users) to ${given.length} (ids given)`} (all are users of the application)`,
      ex,
    )
    x.must(
      body.count.sent + body.count.unsent === body.count.requested,
      'messages.send.counts-add-up',
      `${what}: sent ${body.count.sent} + unsent ${body.count.unsent}, want requested ${body.count.requested}`,
      ex,
    )
    const strange = body.sentList.filter((e) => !ids.includes(e.recipientUsername))
    x.must(strange.length === 0, 'messages.send.recipients', `${what}: sentList names ${show(strange.map((e) => e.recipientUsername))}, not asked for`, ex)
    const first = body.sentList[0]
    if (!first) return
    const recipients = new Set(body.sentList.filter((e) => e.messageId === first.messageId).map((e) => e.recipientUsername))
    // The delivery status may show the message a moment after the send: read again while the poll time lasts.
    await patiently(x, async () => {
      const st = await x.call(this.by, (api) => api.deliveryStatus(first.messageId))
      const swhat = `${this.by} GET /messages/${first.messageId}`
      ok(x, st, 'messages.status.shape', swhat)
      const records = schema<{ recipient: string; sender: string; messageId: string }[]>(x, st, 'delivery-list', 'messages.status.shape', swhat)
      x.must(records.length > 0, 'messages.status.agrees', `${swhat}: no delivery record for a message that was sent`, st)
      for (const r of records) {
        x.must(
          r.messageId === first.messageId && r.sender === x.userId(this.by) && recipients.has(r.recipient),
          'messages.status.agrees',
          `${swhat}: record ${show(r)}, want messageId ${first.messageId}, sender ${x.userId(this.by)} and a recipient among ${show([...recipients])}`,
          st,
        )
      }
    })
  }
}

class Push extends Cmd {
  readonly slot = null
  /** `keys`: predefined payload keys besides title and body (§4.4: title, body, sound, badge, icon). */
  constructor(
    public by: AccountKey,
    readonly to: AccountKey,
    readonly action: 'PUSH' | 'WAKEUP',
    readonly title: string,
    readonly keys: string[] = [],
  ) {
    super()
  }
  toString(): string {
    return `${this.by} pushes ${this.action} to ${this.to}${this.keys.length ? ` (payload keys title, body, ${this.keys.join(', ')})` : ''}`
  }
  async exec(x: Exec): Promise<void> {
    const what = `${this.by} POST /push/user/${x.userId(this.to)} (${this.action})`
    const ex = await x.call(this.by, (api) =>
      api.pushToUser(x.userId(this.to), {
        action: this.action,
        name: `${x.prefix}-push`,
        payload: { title: this.title, body: 'explore', ...Object.fromEntries(this.keys.map((k) => [k, k === 'badge' ? '1' : 'default'])) },
      }),
    )
    // The spec gives badge no type (a number on the platforms, a string in a key/value map): a refusal with it is open.
    if (!success(ex) && (!PLAIN.test(this.title) || this.keys.includes('badge'))) return noServerError(x, ex, 'push.shape', what)
    ok(x, ex, this.keys.length ? 'push.payload-keys' : 'push.actions', what)
    const body = schema<{ count: { sent: number; unsent: number }; sentList: unknown[]; unsentList: unknown[] }>(x, ex, 'push-result', 'push.shape', what)
    x.must(
      // The unsentList's elements are not shown (one may list several devices): only empty exactly when unsent is 0.
      body.count.sent === body.sentList.length && (body.count.unsent === 0) === (body.unsentList.length === 0),
      'push.counts',
      `${what}: count ${show(body.count)}, lists of ${body.sentList.length} sent and ${body.unsentList.length} unsent`,
      ex,
    )
  }
}

/** The messages commands the explore run draws from, each with its weight (the order is part of a seed's meaning). */
export function messageCommands(): Weighted[] {
  return [
    weighted(
      fc
        .tuple(account, fc.array(account, { minLength: 1, maxLength: 3 }), fc.boolean(), contentArb, fc.boolean())
        .map(([by, to, r, c, md]) => new SendMessage(by, to, r, c, md)),
      1,
    ),
    weighted(
      fc
        .tuple(account, account, fc.constantFrom<'PUSH' | 'WAKEUP'>('PUSH', 'WAKEUP'), textArb, fc.subarray(['sound', 'badge', 'icon']))
        .map(([by, to, a, t, k]) => new Push(by, to, a, t, k)),
      1,
    ),
  ]
}
