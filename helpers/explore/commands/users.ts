/** Users: list and search by property (§4.1, suites/users.test.ts). */
import fc from 'fast-check'
import type { Exchange } from '../../http/client'
import type { ClauseId } from '../../spec/clauses'
import { ACCOUNT_KEYS, type AccountKey } from '../../config/config'
import { ok, schema } from '../judge'
import { Exec } from '../state'
import { account, Cmd, type Weighted, weighted } from './base'

const USER_PROPS = ['userName', 'userIdentifier', 'email', 'firstName', 'lastName'] as const
type UserForm = 'exact' | 'contains' | 'nomatch'

/** The smallest page a search engine commonly answers by default: a full page of matches without the account may be a first page. */
const USER_PAGE_HINT = 10

class Users extends Cmd {
  readonly slot = null
  constructor(
    public by: AccountKey,
    readonly about: AccountKey,
    readonly prop: (typeof USER_PROPS)[number] | 'list',
    readonly form: UserForm,
  ) {
    super()
  }
  toString(): string {
    return this.prop === 'list'
      ? `${this.by} lists all users`
      : `${this.by} searches users by ${this.prop} (${this.form}${this.form === 'nomatch' ? '' : ` value of ${this.about}`})`
  }
  async exec(x: Exec): Promise<void> {
    const accounts = x.shared.run.accounts
    const passwords = ACCOUNT_KEYS.map((k) => accounts[k].password)
    const judgeList = (ex: Exchange, id: ClauseId, what: string): Record<string, unknown>[] => {
      ok(x, ex, id, what)
      schema(x, ex, 'user-list', id, what)
      const list = ex.json as Record<string, unknown>[]
      // Anywhere in a record (userAccountData included), not only in its password field.
      x.must(
        list.every((u) => !passwords.some((p) => JSON.stringify(u ?? null).includes(JSON.stringify(p).slice(1, -1)))),
        'users.password-masked',
        `${what}: a record carries a test account's real password`,
        ex,
      )
      return list
    }
    if (this.prop === 'list') {
      const what = `${this.by} GET /user/all`
      const ex = await x.call(this.by, (api) => api.listUsers())
      const ids = judgeList(ex, 'users.list.shape', what).map((u) => u?.userIdentifier)
      const missing = ACCOUNT_KEYS.filter((k) => !ids.includes(accounts[k].userId))
      x.must(missing.length === 0, 'users.list.contains-accounts', `${what}: accounts ${missing.join(', ')} are not listed`, ex)
      return
    }
    const record = x.shared.userRecords[this.about]
    // A *fragment* is taken from the middle of the user name only (other properties may be tokenised by a search engine).
    if (this.form === 'contains' && this.prop !== 'userName') return
    const value = record?.[this.prop]
    if (this.form !== 'nomatch' && (typeof value !== 'string' || value.length < 3)) return
    const v = value as string
    const len = Math.max(1, Math.min(4, v.length - 2))
    const start = Math.floor((v.length - len) / 2)
    const q =
      this.form === 'exact'
        ? `${this.prop}:${v}`
        : this.form === 'contains'
          ? `${this.prop}:*${v.slice(start, start + len)}*`
          : this.about === 'A'
            ? `userName:*zq${x.prefix.replace(/[^a-z0-9]/g, '')}nomatch*`
            : `userName:zq${x.prefix.replace(/[^a-z0-9]/g, '')}nomatch`
    const what = `${this.by} GET /user/query?q=${q}`
    const ex = await x.call(this.by, (api) => api.searchUsers(q))
    const id: ClauseId = this.form === 'exact' ? 'users.search.property' : this.form === 'contains' ? 'users.search.wildcard' : 'users.search.no-match'
    const list = judgeList(ex, id, what)
    if (this.form === 'nomatch') return x.must(list.length === 0, id, `${what}: ${list.length} user(s), want none`, ex)
    if (list.some((u) => u?.userIdentifier === accounts[this.about].userId)) return
    // Paging is not shown (§4.1): a full page of users that all match may be the first of several, the account on a later one.
    const fragment = v.slice(start, start + len).toLowerCase()
    const matches = (u: Record<string, unknown>) =>
      typeof u?.[this.prop] === 'string' &&
      (this.form === 'exact' ? (u[this.prop] as string).toLowerCase() === v.toLowerCase() : (u[this.prop] as string).toLowerCase().includes(fragment))
    if (list.length >= USER_PAGE_HINT && list.every(matches)) return
    x.must(
      false,
      id,
      `${what}: ${this.about} (${accounts[this.about].userId}) is not among ${list.length} result(s)${list.length >= USER_PAGE_HINT ? ', some of which do not match' : ''}`,
      ex,
    )
  }
}

/** The users commands the explore run draws from, each with its weight (the order is part of a seed's meaning). */
export function userCommands(): Weighted[] {
  return [
    weighted(
      fc
        .tuple(account, account, fc.constantFrom(...USER_PROPS, 'list' as const), fc.constantFrom<UserForm>('exact', 'contains', 'nomatch'))
        .map(([by, about, p, f]) => new Users(by, about, p, f)),
      1,
    ),
  ]
}
