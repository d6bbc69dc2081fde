/**
 * One method per endpoint of §4, each resolving to the raw Exchange. An Api is bound to a token (or none)
 * and, inside a check, to that check's Recorder, so every exchange becomes evidence.
 */
import { HttpClient, type Exchange, type Query, type RequestSpec } from './client'
import type { AccountKey } from './run-context'
import { bindRecorder, type Recorder } from './recorder'
import type { Target } from './run-context'
import { TokenLifetimeError, type TokenSource } from './tokens'

/** Path segment for a channel name: `#` of `<userId>#<name>` travels as %23. */
export const seg = (s: string): string => encodeURIComponent(s)

export interface SignInParams {
  userName: string
  password: string
  clientId: string
  deviceId?: string | null
  /** Default 'form': a password in a query string ends up in access logs; only signin.params.query asks for 'query'. */
  via?: 'query' | 'form'
  /** The form body's Content-Type as sent (default application/x-www-form-urlencoded); only with 'form'. */
  contentType?: string
  grantType?: string
  scope?: string
}

export interface CreateChannelBody {
  channelName: string
  maxItems?: number
  privateChannel?: boolean
  description?: string
  subscribeOnCreate?: boolean
  publishPermission?: 'anyone' | 'owner' | 'subscribers'
  [extra: string]: unknown
}

export interface SearchParams {
  /** An array repeats the parameter (a search given one filter twice). */
  channelName?: string | string[]
  description?: string | string[]
  tag?: string | string[]
  offset?: number
  size?: number
}

export interface FetchParams {
  since?: string
  until?: string
  sort_order?: string
  offset?: number
  size?: number
}

/**
 * Told of every channel create before its request leaves and of every delete the server accepted: the run's
 * ledger (./ledger.ts), so a check cut short between a create and its own bookkeeping hides no channel.
 */
export interface ChannelLog {
  /** True when this create's name was not yet live in the log. */
  creating(caller: Api, name: string, personal: boolean): boolean
  /** The create that `creating` wrote ahead was refused (4xx): nothing was made. */
  refused(caller: Api, name: string, personal: boolean): void
  deletedBy(caller: Api, name: string, personal: boolean): void
}

/** A token sent this soon after its sign-in is fresh: its refusal is not an expiry the run can outlive. */
const FRESH_MS = 2000

export class Api {
  /**
   * `session`: the run account this caller is; its token is then asked for at every call (it may have been
   * renewed) and `token` is only the one it started with.
   */
  constructor(
    readonly http: HttpClient,
    readonly target: Target,
    readonly token: string | null,
    private readonly rec?: Recorder,
    private readonly extraHeaders: Record<string, string> = {},
    readonly session?: TokenSource,
  ) {}

  /** Place in the run's queue when the pace holds requests back (default: its check's start order, else last). */
  priority: number | undefined

  /** The check's ledger, told of creates and deletes (a check's callers have one; cleanup's own do not). */
  channelLog: ChannelLog | undefined

  /** The run account whose token this caller sends, if it is one. */
  get account(): AccountKey | null {
    return this.session?.key ?? null
  }

  /** The same caller with another token (null: none): never renewed, whatever it answers. */
  withToken(token: string | null): Api {
    const api = new Api(this.http, this.target, token, this.rec, this.extraHeaders)
    api.channelLog = this.channelLog
    return api
  }

  /** The same caller sending an explicit Authorization header (malformed-header checks). */
  withAuthorization(value: string): Api {
    return new Api(this.http, this.target, null, this.rec, { ...this.extraHeaders, authorization: value })
  }

  async send(spec: RequestSpec): Promise<Exchange> {
    spec = { ...spec, priority: spec.priority ?? this.rec?.order ?? this.priority }
    const headers = { ...this.extraHeaders, ...spec.headers }
    const own = this.session && spec.token === undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')
    const ex = own ? await this.sendAsAccount(this.session!, spec, headers) : await this.http.send({ token: this.token, ...spec, headers })
    // Evidence says who asked: a run account, nobody, or a credential the check made up.
    ex.account = own ? this.session!.key : ex.request.headers.authorization === undefined ? 'anonymous' : 'other'
    return this.rec ? bindRecorder(ex, this.rec) : ex
  }

  /**
   * A call with the account's current token. A 401 judges the call only when the token it was sent with is
   * proven to work (a harmless read with it is not refused). A token that no longer works is replaced (by a
   * new sign-in, or by another worker's newer token) and the call repeated: only the answer to a working token
   * counts. A token this call had renewed, refused within FRESH_MS of its sign-in, ends the call: tokens do not
   * last for the run.
   */
  private async sendAsAccount(session: TokenSource, spec: RequestSpec, headers: Record<string, string>): Promise<Exchange> {
    await session.current() // renews ahead of a believable expires_in
    let sent = session.peek()
    let sentAt = 0
    // Read as the request leaves: it may wait for the pace long enough for the token to be renewed meanwhile.
    const send = () =>
      this.http.send({
        ...spec,
        headers,
        token: undefined,
        bearer: () => {
          sent = session.peek()
          sentAt = Date.now()
          return sent.token
        },
      })
    let ex = await send()
    let renewed = false
    for (let round = 0; ex.status === 401; round++) {
      const now = session.peek()
      if (now.version === sent.version) {
        if (!(await session.refused(sent.token))) return ex
        if ((renewed && sentAt - sent.issuedAt < FRESH_MS) || round >= 3) {
          throw new TokenLifetimeError(
            `${ex.request.method} ${ex.request.url}: account ${session.key}'s token was refused (401), and so was a fresh one from signing in again: ` +
              "the target's tokens stop working sooner than the run needs them (see signin.session.expires-in-value), so the check could not be judged",
          )
        }
        await session.renew(sent.version)
        renewed = true
      }
      // Else another caller renewed it meanwhile: repeat with the newer token.
      ex = await send()
    }
    return ex
  }

  private userPath(path: string): string {
    return `${this.target.userApiPath}${path}`
  }

  private messagePath(path: string): string {
    return `${this.target.messageApiPath}${path}`
  }

  private channelPath(name: string, rest = ''): string {
    return this.messagePath(`/channels/${seg(name)}${rest}`)
  }

  // ── §4.1 user service ──────────────────────────────────────────────────────────────────────────────
  signIn(p: SignInParams): Promise<Exchange> {
    const params: Record<string, string> = {
      grant_type: p.grantType ?? 'password',
      username: p.userName,
      password: p.password,
      client_id: p.clientId,
      scope: p.scope ?? 'public',
    }
    const headers: Record<string, string> = p.deviceId === null ? {} : { 'MMS-DEVICE-ID': p.deviceId ?? 'ct-device' }
    if (p.contentType !== undefined) headers['Content-Type'] = p.contentType
    // Repeated on a gateway's 502/503/504 or a broken connection like a read: signing in again only makes another
    // session for the same account, so a repeat changes nothing a check judges.
    return (p.via ?? 'form') === 'query'
      ? this.send({ method: 'POST', path: this.userPath('/user/session'), query: params, headers, token: null, idempotent: true })
      : this.send({ method: 'POST', path: this.userPath('/user/session'), form: params, headers, token: null, idempotent: true })
  }

  listUsers(): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.userPath('/user/all') })
  }

  searchUsers(q: string, extra: Query = {}): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.userPath('/user/query'), query: { q, ...extra } })
  }

  // ── §4.2 channels ──────────────────────────────────────────────────────────────────────────────────
  async createChannel(body: CreateChannelBody): Promise<Exchange> {
    // Written ahead: the answer may never come (a cut connection, an interrupt) when the server made it all the same.
    const named = typeof body?.channelName === 'string' ? { name: body.channelName, personal: body.privateChannel === true } : null
    const fresh = named ? this.channelLog?.creating(this, named.name, named.personal) : false
    const ex = await this.send({ method: 'POST', path: this.messagePath('/channels'), json: body })
    // A 4xx made nothing; only a name this call wrote ahead is let go (a repeated create's 409 leaves the first).
    if (fresh && named && ex.status >= 400 && ex.status < 500) this.channelLog?.refused(this, named.name, named.personal)
    return ex
  }

  searchChannels(params: SearchParams): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.messagePath('/channels'), query: { ...params } })
  }

  getChannel(name: string): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.channelPath(name) })
  }

  summary(name: string): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.channelPath(name, '/summary') })
  }

  /**
   * `retry`: repeat on transport faults and 502/503/504, for cleanup, where a repeat that meets 404 is as
   * good as a delete. A check judging the delete itself leaves it off: a lost first answer would turn into a 404.
   */
  async deleteChannel(name: string, personal?: boolean, opts: { retry?: boolean } = {}): Promise<Exchange> {
    const ex = await this.send({ method: 'DELETE', path: this.channelPath(name), query: { personal }, ...(opts.retry ? { idempotent: true } : {}) })
    if (ex.status >= 200 && ex.status < 300) this.channelLog?.deletedBy(this, name, personal === true)
    return ex
  }

  subscribe(name: string): Promise<Exchange> {
    return this.send({ method: 'PUT', path: this.channelPath(name, '/subscribe') })
  }

  unsubscribe(name: string): Promise<Exchange> {
    return this.send({ method: 'PUT', path: this.channelPath(name, '/unsubscribe') })
  }

  subscriptions(name: string): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.channelPath(name, '/subscriptions') })
  }

  addTags(name: string, tags: string[], personal?: boolean): Promise<Exchange> {
    return this.send({ method: 'POST', path: this.channelPath(name, '/tags'), json: personal === undefined ? { tags } : { personal, tags } })
  }

  getTags(name: string): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.channelPath(name, '/tags') })
  }

  deleteTag(name: string, tag: string, personal?: boolean): Promise<Exchange> {
    return this.send({ method: 'DELETE', path: this.channelPath(name, `/tags/${seg(tag)}`), query: { personal } })
  }

  deleteTags(name: string, personal?: boolean): Promise<Exchange> {
    return this.send({ method: 'DELETE', path: this.channelPath(name, '/tags'), query: { personal } })
  }

  publish(name: string, body: { content: Record<string, unknown>; messageType?: string; contentType?: string }): Promise<Exchange> {
    return this.send({ method: 'POST', path: this.channelPath(name, '/items'), json: body })
  }

  getItems(name: string, ids: string[]): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.channelPath(name, '/items'), query: { id: ids } })
  }

  fetchItems(name: string, params: FetchParams = {}): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.channelPath(name, '/items/fetch'), query: { ...params } })
  }

  deleteItems(name: string, ids: string[]): Promise<Exchange> {
    return this.send({ method: 'DELETE', path: this.channelPath(name, '/items'), query: { id: ids } })
  }

  deleteAllItems(name: string, personal?: boolean): Promise<Exchange> {
    return this.send({ method: 'DELETE', path: this.channelPath(name, '/items/all'), query: { personal } })
  }

  // ── §4.3 direct messages ──────────────────────────────────────────────────────────────────────────
  sendToUserIds(body: {
    receipt: boolean
    recipientUserIds: string[]
    content: Record<string, unknown>
    metadata?: Record<string, unknown>
  }): Promise<Exchange> {
    return this.send({ method: 'POST', path: this.messagePath('/messages/send_to_user_ids'), json: body })
  }

  deliveryStatus(messageId: string): Promise<Exchange> {
    return this.send({ method: 'GET', path: this.messagePath(`/messages/${seg(messageId)}`) })
  }

  // ── §4.4 push ──────────────────────────────────────────────────────────────────────────────────────
  pushToUser(userId: string, body: { action: string; name: string; payload: Record<string, unknown> }): Promise<Exchange> {
    return this.send({ method: 'POST', path: this.messagePath(`/push/user/${seg(userId)}`), json: body })
  }
}
