/**
 * §4.1 list all users and search users, §2.1 User. The values searched for come from account A's own record
 * in the user list, so the checks hold on any deployment whatever the accounts are called. The spec gives
 * only a body for both calls ("Response: array of User"), so success is any 2xx.
 *
 * Paging of search results is not shown (§4.1: neither the parameters nor the page size), so an answer that
 * holds other matching users but not A may be a first page: the check then cannot judge and is skipped, not
 * failed. userStatus is promised only in the sign-in response (§2.1), so a result without it is neither a match
 * nor a mismatch.
 */
import type { Api } from '../helpers/http/api'
import { check, describe } from '../helpers/kit/check'
import type { Exchange } from '../helpers/http/client'
import { checkJsonContentType, ensure, isSuccess, show } from '../helpers/kit/expect'
import { eventually } from '../helpers/kit/poll'
import type { RunAccount } from '../helpers/http/run-context'
import { ALSO, type Judge, steps } from '../helpers/kit/judge'
import { mustSignInAnotherDevice } from '../helpers/kit/setup'
import type { TestContext } from 'vitest'
import { match } from './support/match'

type UserRecord = Record<string, unknown>

const PROPERTIES = ['userName', 'firstName', 'lastName', 'email', 'userRealm', 'userStatus', 'userIdentifier'] as const
/**
 * Whether a search result has the value searched for: true or false, or undefined when the result does not
 * carry the field (§2.1 promises userStatus only in the sign-in response, so a search result may leave it out).
 */
type Match = (u: UserRecord) => boolean | undefined
/**
 * Paging parameters of common search engines and APIs, tried in turn when A is not on the first page: the
 * spec leaves their names unshown (§4.1). Each gives the parameters of the page after `seen` results.
 */
const PAGING: { name: string; next: (seen: number, size: number) => Record<string, number> }[] = [
  { name: 'from/size', next: (seen, size) => ({ from: seen, size }) },
  { name: 'offset/limit', next: (seen, size) => ({ offset: seen, limit: size }) },
  { name: 'skip/take', next: (seen, size) => ({ skip: seen, take: size }) },
  { name: 'start/rows', next: (seen, size) => ({ start: seen, rows: size }) },
  { name: 'page/per_page', next: (seen, size) => ({ page: Math.floor(seen / size) + 1, per_page: size }) },
  { name: 'page/size', next: (seen, size) => ({ page: Math.floor(seen / size), size }) },
]
/** Pages read per paging scheme at most; a busy directory of a few hundred look-alike users fits. */
const MAX_PAGES = 60

/** A's record from the user list (matched by userIdentifier); fails users.list.shape when it is not there. */
async function recordOf(api: Api, account: RunAccount): Promise<{ record: UserRecord; ex: Exchange }> {
  const ex = await api.listUsers()
  const list = steps.listUsers.match(steps.listUsers.response(ex, { status: '2xx' }), match.array('an array of User'), ex)
  const record = list.find((u): u is UserRecord => isRecord(u) && u.userIdentifier === account.userId)
  ensure(record, steps.accountListed, `no element with /userIdentifier ${show(account.userId)} (account ${account.key})`, ex)
  return { record, ex }
}

function isRecord(v: unknown): v is UserRecord {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** The userIdentifiers of a list-users answer; none when its body is not an array. */
function listedIds(ex: Exchange): Set<unknown> {
  return new Set(Array.isArray(ex.json) ? ex.json.filter(isRecord).map((u) => u.userIdentifier) : [])
}

/** A list-users answer must be 2xx, an array, and name each of `accounts` by userIdentifier. */
function judgeAccountsListed(ex: Exchange, accounts: readonly RunAccount[], judge: Judge): void {
  judge.match(judge.response(ex, { status: '2xx' }), match.array('an array of User'), ex)
  const missing = accounts.filter((acc) => !listedIds(ex).has(acc.userId))
  ensure(missing.length === 0, judge, () => `no element with /userIdentifier of account(s) ${missing.map((m) => `${m.key} (${m.userId})`).join(', ')}`, ex)
}

function sameText(a: unknown, b: unknown): boolean {
  return typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase()
}

/** The search answer as an array of records; anything else fails the given clause. */
function usersOf(ex: Exchange, judge: Judge): UserRecord[] {
  const body = judge.match(judge.response(ex, { status: '2xx' }), match.array('an array of User'), ex)
  judge.match(body, match.each('', match.object('a User object')), ex)
  return body as UserRecord[]
}

/** Pointers of string fields that are, or contain, a real password. */
function passwordLeaks(records: unknown[], accounts: RunAccount[]): string[] {
  const leaks: string[] = []
  records.forEach((r, i) => {
    if (!isRecord(r)) return
    const visit = (value: unknown, pointer: string): void => {
      if (typeof value === 'string') {
        for (const acc of accounts) {
          const real = acc.password
          if (value === real || (real.length >= 6 && value.includes(real))) leaks.push(`${pointer} carries account ${acc.key}'s real password`)
        }
      } else if (Array.isArray(value)) value.forEach((v, j) => visit(v, `${pointer}/${j}`))
      else if (isRecord(value)) for (const [k, v] of Object.entries(value)) visit(v, `${pointer}/${k}`)
    }
    visit(r, `/${i}`)
  })
  return leaks
}

/** A property's Match: undefined where the record has no such field. */
const hasValue =
  (property: string, value: unknown): Match =>
  (u) =>
    u[property] === undefined ? undefined : sameText(u[property], value)

/**
 * Account A is not in a search answer that holds other users, none of them known not to match: the answer may
 * be a first page (paging and its size are not shown, §4.1) that A is beyond, so nothing is judged: recorded,
 * and the check ends skipped. An empty answer, or one with a user that does not match, is judged by the caller.
 */
function beyondFirstPage(judge: Judge, skip: TestContext['skip'], q: string, page: UserRecord[], how: string): never {
  judge.observe(`${q}: ${page.length} matching user(s) without account A, ${how}; taken as a first page`, ALSO.searchPaging)
  return skip(`${q}: account A is not on what may be a first page of ${page.length} (paging not shown), so the search cannot be judged`)
}

/**
 * A record whose value holds the searched text (or the other way round) is what a full-text engine's analysed
 * match returns (§4.1 "URI search conventions of a full-text search engine"): not known not to match.
 */
function relatedTo(q: string): (u: UserRecord) => boolean {
  const value = q
    .split(':')
    .slice(1)
    .join(':')
    .replace(/^\*|\*$/g, '')
    .toLowerCase()
  return (u) =>
    value !== '' && Object.values(u).some((v) => typeof v === 'string' && v !== '' && (v.toLowerCase().includes(value) || value.includes(v.toLowerCase())))
}

/**
 * Looks for `userId` in the answers to search `q`: on the first page, else by paging with one of the common
 * parameter schemes (the first that gives a next page of users none of which is known not to match). `found`
 * is false when no scheme reaches it; `page` is the first answer's records and `how` says where it was found,
 * for the record.
 */
async function locate(
  api: Api,
  q: string,
  userId: string,
  matches: Match,
  judge: Judge,
): Promise<{ found: boolean; page: UserRecord[]; ex: Exchange; how: string }> {
  const ex = await api.searchUsers(q)
  const page = usersOf(ex, judge)
  const related = relatedTo(q)
  const mismatch = (u: UserRecord) => matches(u) === false && !related(u)
  if (page.some((u) => u.userIdentifier === userId)) return { found: true, page, ex, how: 'on the first page' }
  if (page.length === 0 || page.some(mismatch)) return { found: false, page, ex, how: 'not on the only page' }
  const firstIds = new Set(page.map((u) => u.userIdentifier))
  for (const scheme of PAGING) {
    let seen = page.length
    for (let n = 1; n <= MAX_PAGES; n++) {
      const next = await api.searchUsers(q, scheme.next(seen, page.length))
      const got = Array.isArray(next.json) ? (next.json as unknown[]).filter(isRecord) : []
      // A scheme the server ignores repeats the first page (or refuses): try the next scheme.
      if (!isSuccessLike(next) || got.length === 0 || got.some(mismatch) || (n === 1 && got.every((u) => firstIds.has(u.userIdentifier)))) break
      if (got.some((u) => u.userIdentifier === userId)) return { found: true, page, ex, how: `on page ${n + 1} with ${scheme.name}` }
      seen += got.length
    }
  }
  return { found: false, page, ex, how: `not within ${MAX_PAGES} pages of any common paging scheme (${PAGING.map((p) => p.name).join(', ')})` }
}

const isSuccessLike = (ex: Exchange): boolean => ex.status >= 200 && ex.status < 300

const ACCOUNT_KEYS = ['A', 'B', 'C'] as const
type AccountKey = (typeof ACCOUNT_KEYS)[number]
/**
 * Besides userIdentifier and userName, each target is searched for by one name of its sign-in record (§2.2 "record
 * as in 2.1"), by a caller other than itself: one request per target, the two names and all callers in turn.
 */
const ALSO_BY: Record<AccountKey, { by: AccountKey; property: 'firstName' | 'lastName' }> = {
  A: { by: 'B', property: 'firstName' },
  B: { by: 'C', property: 'lastName' },
  C: { by: 'A', property: 'firstName' },
}

type Position = 'start' | 'middle' | 'end' | 'one character'

/** The properties whose values tell users apart, each searched for by a fragment of A's value. */
const WILDCARD_PROPERTIES = ['userName', 'firstName', 'lastName', 'email', 'userIdentifier'] as const
/** The body of a check, as a check takes it. */
type CheckBody = Parameters<typeof check>[2]

/**
 * A fragment of `value` at `position`, taken within a run of letters and digits so that an engine that splits text
 * at "@", "." or "-" still holds it in one piece, and never the whole value (that would be an exact match):
 * - middle: from the middle of the longest run (userName: of the whole name, across any "." or "-" in it, which a
 *   matcher that works token by token misses), neither a prefix nor a suffix, so only a contains-match finds it;
 * - start / end: the first / last characters of the run the value starts / ends with, as written (a capital stays one).
 * Undefined when the value has no such run of 2 or more characters.
 */
function fragmentOf(property: string, value: string, position: Position): string | undefined {
  // One letter or digit, the middle one of the longest run: a fragment as short as a fragment gets.
  if (position === 'one character') {
    const run = (value.match(/[\p{L}\p{N}]+/gu) ?? []).sort((x, y) => y.length - x.length)[0] ?? ''
    return run.length >= 2 ? [...run][Math.floor([...run].length / 2)] : undefined
  }
  if (position === 'middle') {
    const run = property === 'userName' ? value : ((value.match(/[\p{L}\p{N}]+/gu) ?? []).sort((x, y) => y.length - x.length)[0] ?? '')
    if (run.length < 3) return undefined
    const len = Math.max(1, Math.min(4, run.length - 2))
    const start = Math.floor((run.length - len) / 2)
    return run.slice(start, start + len)
  }
  const run = (position === 'start' ? value.match(/^[\p{L}\p{N}]+/u) : value.match(/[\p{L}\p{N}]+$/u))?.[0] ?? ''
  // Up to 4 characters, one short of the run when the run is the whole value.
  const len = Math.min(4, run.length === value.length ? run.length - 1 : run.length)
  if (len < 2) return undefined
  return position === 'start' ? run.slice(0, len) : run.slice(run.length - len)
}

describe('GET {user}/user/all (§4.1 list all users)', () => {
  check('users.list.shape', 'answers an array of User records, each with email', async ({ a, users, judge }) => {
    const ex = await a.listUsers()
    const list = judge.match(judge.response(ex, { status: '2xx' }), match.array('an array of User'), ex)
    checkJsonContentType(ex)
    // A, B and C are judged strictly; users the run did not create (a shared server's data) only as a SHOULD.
    const ours = new Set([users.A.userId, users.B.userId, users.C.userId])
    const own = judge.elements(ex, list, {
      schema: 'user',
      others: ALSO.listOtherRecords,
      pointer: '',
      own: (u) => isRecord(u) && ours.has(u.userIdentifier as string),
    })
    ensure(own > 0, judge, `(root): ${list.length} element(s), none with the /userIdentifier of account A, B or C, whose records are judged`, ex)
  })

  check('users.list.contains-accounts', 'lists the test accounts A, B and C', async ({ a, users, judge }) => {
    judgeAccountsListed(await a.listUsers(), [users.A, users.B, users.C], judge)
  })

  check('users.password-masked', 'carries no real password in any listed record', async ({ a, users, judge }) => {
    const ex = await a.listUsers()
    const list = judge.match(judge.response(ex, { status: '2xx' }), match.array('an array of User'), ex)
    const leaks = passwordLeaks(list, [users.A, users.B, users.C])
    ensure(leaks.length === 0, judge, () => leaks.join('\n'), ex)
    for (const acc of [users.A, users.B, users.C]) {
      const record = list.find((u) => isRecord(u) && u.userIdentifier === acc.userId) as UserRecord | undefined
      if (record)
        judge.match(
          record,
          match.when(
            `account ${acc.key}`,
            match.that('/password', (pw) => typeof pw === 'string', 'the masked placeholder string'),
          ),
          ex,
        )
    }
  })

  check('users.list.contains-accounts', 'lists A, B and C after each has signed in on a second device', async ({ a, anon, users, run, judge }) => {
    // A sign-in may register its device (the spec does not say); a user with two devices is still a user.
    const all = [users.A, users.B, users.C]
    for (const acc of all) await mustSignInAnotherDevice(anon, acc, run, 'ul2')
    // Polled: a directory may show a change of a user's devices a moment later.
    const ex = await eventually(
      () => a.listUsers(),
      (e) => isSuccess(e) && all.every((acc) => listedIds(e).has(acc.userId)),
    )
    judgeAccountsListed(ex, all, judge)
    // A list of all users holds a user once, however many devices it signed in on.
    const key = (u: unknown) => (isRecord(u) ? u.userIdentifier : undefined)
    judge.match(
      ex.json,
      all.map((acc) => match.once('', acc.userId, { key, what: `account ${acc.key}` })),
      ex,
    )
  })
})

describe('GET {user}/user/query (§4.1 search users)', () => {
  check('users.search.shape', 'answers an array of User records', async ({ b, users, judge }) => {
    // B searches for A: whether a caller finds itself is the property checks' cell.
    const ex = await b.searchUsers(`userIdentifier:${users.A.userId}`)
    const list = judge.response<unknown[]>(ex, { status: '2xx', schema: 'user-list' })
    judge.match(list, match.when(`userIdentifier:${users.A.userId}`, match.atLeast('', 1, "A's record")), ex)
  })

  check('users.password-masked', 'carries no real password in search results', async ({ a, users, judge }) => {
    const ex = await a.searchUsers(`userIdentifier:${users.A.userId}`)
    const found = usersOf(ex, judge)
    const leaks = passwordLeaks(found, [users.A, users.B, users.C])
    ensure(leaks.length === 0, judge, () => leaks.join('\n'), ex)
  })

  check('users.search.property', 'finds by userIdentifier each user the list of all users shows (up to 8)', async ({ a, users, judge }) => {
    // Every user the list shows is a user a search by its id must return, whether or not it ever signed in or was
    // made by this run: the run's accounts first, then the deployment's others (read only, never changed).
    const listEx = await a.listUsers()
    const list = steps.listUsers.match(steps.listUsers.response(listEx, { status: '2xx' }), match.array('an array of User'), listEx)
    const ours = [users.A.userId, users.B.userId, users.C.userId]
    const ids = [...new Set(list.flatMap((u) => (isRecord(u) && typeof u.userIdentifier === 'string' && u.userIdentifier !== '' ? [u.userIdentifier] : [])))]
    const picked = [...ids.filter((id) => ours.includes(id)), ...ids.filter((id) => !ours.includes(id))].slice(0, 8)
    const key = (u: unknown) => (isRecord(u) ? u.userIdentifier : undefined)
    for (const id of picked) {
      const q = `userIdentifier:${id}`
      const ex = await a.searchUsers(q)
      judge.match(usersOf(ex, judge), match.when(`${q}, a user the list of all users shows`, match.once('', id, { key, what: 'that user' })), ex)
    }
  })

  // The deployment's users × their names: a search by a listed user's own firstName or lastName, whatever letters
  // they hold, does not come back empty (a search that folds accents on one side only misses "Müller" spelt as
  // stored). Values of one word of letters only: a space or a mark may be query syntax (§4.1 full-text
  // conventions). Which users a non-empty answer holds, and its pages, are the property checks' (A's values);
  // here a non-empty answer that leaves the user out is recorded, and an empty one is polled (an index may lag).
  check(
    'users.search.property',
    'finds each user the list of all users shows (up to 8, those with letters beyond ASCII first) by its firstName and by its lastName',
    async ({ a, users, judge }) => {
      const listEx = await a.listUsers()
      const list = steps.listUsers.match(steps.listUsers.response(listEx, { status: '2xx' }), match.array('an array of User'), listEx).filter(isRecord)
      const word = (v: unknown): v is string => typeof v === 'string' && /^\p{L}+$/u.test(v)
      const beyondAscii = (u: UserRecord) => [u.firstName, u.lastName].some((v) => word(v) && /[^\x00-\x7f]/.test(v))
      const ours = new Set([users.A.userId, users.B.userId, users.C.userId])
      const withWords = list.filter((u) => typeof u.userIdentifier === 'string' && (word(u.firstName) || word(u.lastName)))
      const picked = [
        ...withWords.filter(beyondAscii),
        ...withWords.filter((u) => !beyondAscii(u) && ours.has(u.userIdentifier as string)),
        ...withWords.filter((u) => !beyondAscii(u) && !ours.has(u.userIdentifier as string)),
      ].slice(0, 8)
      const elsewhere: string[] = []
      for (const u of picked)
        for (const property of ['firstName', 'lastName'] as const) {
          const value = u[property]
          if (!word(value)) continue
          const q = `${property}:${value}`
          const ex = await eventually(
            () => a.searchUsers(q),
            (e) => !isSuccessLike(e) || (Array.isArray(e.json) && e.json.length > 0),
          )
          const found = usersOf(ex, judge)
          ensure(
            found.length > 0,
            judge,
            `${q}: no user at all, where the list of all users shows /userIdentifier ${show(u.userIdentifier)} with that ${property}`,
            ex,
          )
          if (!found.some((r) => r.userIdentifier === u.userIdentifier))
            elsewhere.push(`${q}: ${found.length} user(s) on the first page, not ${show(u.userIdentifier)}`)
        }
      if (elsewhere.length) judge.observe(`not on the first page (paging not shown): ${elsewhere.join('; ')}`, ALSO.searchPaging)
    },
  )

  for (const property of PROPERTIES) {
    check('users.search.property', `finds users by ${property}`, async ({ a, anon, users, run, skip, judge }) => {
      const { record, ex: listEx } = await recordOf(a, users.A)
      let value = record[property]
      if (value === undefined && property === 'userStatus') {
        // userStatus is documented in the sign-in user, not the list (§2.1): take it from there.
        const signIn = await anon.signIn({
          userName: users.A.userName,
          password: users.A.password,
          clientId: run.clientId,
          deviceId: `${run.namePrefix}-${run.runId}-us`,
        })
        const body = judge.response<{ user?: UserRecord }>(signIn, { status: '2xx' })
        value = body?.user?.userStatus
      }
      ensure(
        typeof value === 'string' && value !== '',
        steps.listUsers,
        match.explain({ [property]: value }, match.when(`account A (/userIdentifier ${users.A.userId})`, match.nonEmptyString(`/${property}`))),
        listEx,
      )
      const q = `${property}:${value}`
      if (property === 'userIdentifier') {
        const ex = await a.searchUsers(q)
        const found = usersOf(ex, judge)
        const key = (u: unknown) => (isRecord(u) ? u.userIdentifier : undefined)
        // An id names one user: only A comes back, so a search is not a list of everybody.
        judge.match(
          found,
          [
            match.when(q, match.lacks('', users.B.userId, { key, what: 'account B' })),
            match.when(q, match.lacks('', users.C.userId, { key, what: 'account C' })),
            match.each(
              '',
              match.that(`/${property}`, (got) => sameText(got, value), `${show(value)} in any case`),
            ),
            match.when(q, match.contains('', users.A.userId, { key, what: 'account A' })),
          ],
          ex,
        )
        return
      }
      const matches = hasValue(property, value)
      const { found: hasA, page, ex, how } = await locate(a, q, users.A.userId, matches, judge)
      // Results without the field (userStatus is promised only at sign-in, §2.1) can be judged neither way.
      const carrying = page.filter((u) => matches(u) !== undefined).length
      const wrong = page.map((u, i) => ({ i, got: u[property], ok: matches(u), u })).filter(({ ok }) => ok === false)
      // Results an analysed match returns are off the exact value (SHOULD) but not proof that A was left out.
      const unrelated = wrong.filter(({ u }) => !relatedTo(q)(u))
      const offValue = match.each(
        '',
        match.that(`/${property}`, (got) => got === undefined || sameText(got, value), `${show(value)} in any case`),
      )
      const wrongText = () => offValue(page) ?? ''
      // Filtering follows full-text search conventions (§4.1), which may match more loosely than equality.
      if (carrying > 0)
        judge.should(
          wrong.length === 0,
          wrong.length ? wrongText() : `${q}: all ${carrying} result(s) on the first page that carry ${property} have that value`,
          ALSO.searchExact,
        )
      else if (page.length > 0)
        judge.observe(`${q}: none of the ${page.length} result(s) carries ${property}, so their values are not judged`, ALSO.searchPaging)
      if (hasA) {
        if (how !== 'on the first page') judge.observe(`${q}: account A found ${how}`, ALSO.searchPaging)
        return
      }
      // Paging is not shown (§4.1): a first page of users none of which is known not to match may hold A on a later page.
      ensure(
        page.length > 0 && unrelated.length === 0,
        judge,
        () =>
          `${q}: no element with /userIdentifier ${show(users.A.userId)} (account A has that ${property}); ${how}${wrong.length ? `, and results with another ${property}:\n${wrongText()}` : ''}`,
        ex,
      )
      beyondFirstPage(judge, skip, q, page, how)
    })
  }

  // Callers × targets: each of A, B and C searches for each of them (itself included) by userIdentifier and by
  // userName, and by a name its sign-in record gives, after the target signed in on a second device. A user is one
  // user whichever caller asks and however many devices it signed in on: found (MUST), and once (an answer is an
  // array of users, §4.1; by userIdentifier "only that user"). What else a search returns is users.search.exact's.
  for (const target of ACCOUNT_KEYS) {
    check(
      'users.search.property',
      `A, B and C each find ${target} by userIdentifier and by userName, once, after ${target} signed in on a second device`,
      async ({ a, b, c, anon, users, run, skip, judge }) => {
        const callers: Record<AccountKey, Api> = { A: a, B: b, C: c }
        const acc = users[target]
        // The second device: a sign-in may register its device (the spec does not say), and the run's own is the first.
        const signIn = await anon.signIn({
          userName: acc.userName,
          password: acc.password,
          clientId: run.clientId,
          deviceId: `${run.namePrefix}-${run.runId}-sx${target.toLowerCase()}`,
        })
        const session = steps.signIn.match<{ user?: unknown }>(steps.signIn.response(signIn, { status: '2xx' }), match.object('a Session'), signIn)
        const signedIn = isRecord(session.user) ? session.user : {}
        const cells: { by: AccountKey; property: string; value: unknown }[] = [
          ...ACCOUNT_KEYS.map((by) => ({ by, property: 'userIdentifier', value: acc.userId })),
          ...ACCOUNT_KEYS.map((by) => ({ by, property: 'userName', value: acc.userName })),
          { by: ALSO_BY[target].by, property: ALSO_BY[target].property, value: signedIn[ALSO_BY[target].property] },
        ]
        const key = (u: unknown) => (isRecord(u) ? u.userIdentifier : undefined)
        const what = `account ${target}`
        const unjudged: string[] = []
        for (const { by, property, value } of cells) {
          if (typeof value !== 'string' || value === '') {
            judge.observe(`${target}'s sign-in record carries no ${property}, so ${by} does not search for it by ${property}`)
            continue
          }
          const q = `${property}:${value}`
          const cell = `${by} searching ${q}`
          if (property === 'userIdentifier') {
            const ex = await callers[by].searchUsers(q)
            const found = usersOf(ex, judge)
            judge.match(
              found,
              [
                match.when(
                  cell,
                  match.each(
                    '',
                    match.that('/userIdentifier', (got) => sameText(got, value), `${show(value)} in any case`),
                  ),
                ),
                match.when(cell, match.once('', acc.userId, { key, what })),
              ],
              ex,
            )
            continue
          }
          const { found, page, ex, how } = await locate(callers[by], q, acc.userId, hasValue(property, value), judge)
          judge.match(page, match.when(cell, match.distinct('', { key, what: 'a user' })), ex)
          if (found) {
            if (how !== 'on the first page') judge.observe(`${cell}: account ${target} found ${how}`, ALSO.searchPaging)
            continue
          }
          // As in the property checks: a first page of users none of which is known not to match may hold the target later.
          const unrelated = page.filter((u) => hasValue(property, value)(u) === false && !relatedTo(q)(u))
          if (page.length === 0 || unrelated.length > 0) judge.match(page, match.when(`${cell} (${how})`, match.contains('', acc.userId, { key, what })), ex)
          judge.observe(`${cell}: ${page.length} matching user(s) without account ${target}, ${how}; taken as a first page`, ALSO.searchPaging)
          unjudged.push(cell)
        }
        if (unjudged.length > 0)
          skip(`${unjudged.join('; ')}: account ${target} is not on what may be a first page (paging not shown), so not every cell is judged`)
      },
    )
  }

  // "An asterisk at the start and end gives wildcard matching" for every property the query names (§4.1): each
  // property whose values tell users apart × where in A's value the fragment is taken from (its start, its middle,
  // its end), written exactly as it appears there, capitals included. Whether a fragment in another case matches
  // is not stated, so no cell asks it, and a result is judged to hold the fragment in any case.
  // B searches for A: whether a caller finds itself is the property checks' cell (A searches for A).
  const wildcardCell =
    (property: (typeof WILDCARD_PROPERTIES)[number], position: Position): CheckBody =>
    async ({ a, b, users, skip, judge }) => {
      const { record, ex: listEx } = await recordOf(a, users.A)
      const value = record[property]
      // A user name is the run's own sign-in name; the other fields may be short or absent (then nothing to take).
      ensure(
        property !== 'userName' || (typeof value === 'string' && value.length >= 3),
        steps.listUsers,
        match.explain(
          record,
          match.when(
            'account A',
            match.that(`/${property}`, (n) => typeof n === 'string' && n.length >= 3, 'a string of 3 or more characters to take a fragment from'),
          ),
        ),
        listEx,
      )
      const fragment = typeof value === 'string' ? fragmentOf(property, value, position) : undefined
      if (fragment === undefined) {
        judge.observe(`account A's ${property} ${show(value)} holds no run of letters or digits at its ${position} to take a fragment from`)
        return
      }
      const q = `${property}:*${fragment}*`
      const holds = (v: unknown) => typeof v === 'string' && v.toLowerCase().includes(fragment.toLowerCase())
      const contains = (u: UserRecord) => holds(u[property])
      const { found, page, ex, how } = await locate(b, q, users.A.userId, contains, judge)
      // The property is a field of every listed and searched user (users.search.shape): a result without it does not match.
      judge.match(page, match.each('', match.that(`/${property}`, holds, `a ${property} containing ${show(fragment)}`)), ex)
      if (!found) {
        // As for a property search: a first page of matching users may hold A on a later page.
        ensure(page.length > 0, judge, `${q}: no element with /userIdentifier ${show(users.A.userId)} (A's ${property} contains ${show(fragment)}); ${how}`, ex)
        beyondFirstPage(judge, skip, q, page, how)
      } else if (how !== 'on the first page') judge.observe(`${q}: account A found ${how}`, ALSO.searchPaging)
    }
  for (const property of WILDCARD_PROPERTIES)
    check('users.search.wildcard', `matches a ${property} fragment between asterisks`, wildcardCell(property, 'middle'))
  for (const position of ['start', 'end'] as const) {
    for (const property of WILDCARD_PROPERTIES)
      check(
        'users.search.wildcard',
        `matches a ${property} fragment from the ${position} of the value, written as it appears, between asterisks`,
        wildcardCell(property, position),
      )
  }
  // The shortest fragment: one letter or digit of A's value, which many users may hold (A may then be on a later page).
  for (const property of WILDCARD_PROPERTIES)
    check('users.search.wildcard', `matches a ${property} fragment of one character between asterisks`, wildcardCell(property, 'one character'))

  check('users.search.no-match', 'answers an empty array for a value no user has', async ({ a, fake, judge }) => {
    const value = fake.string.alphanumeric(24)
    const ex = await a.searchUsers(`userName:${value}`)
    const found = usersOf(ex, judge)
    judge.match(found, match.when(`userName:${value}`, match.size('', 0)), ex)
  })

  check('users.search.paging', 'records what take, skip and sort do', async ({ a, users, judge }) => {
    const { record } = await recordOf(a, users.A).catch(() => ({ record: {} as UserRecord }))
    const realm = typeof record.userRealm === 'string' ? record.userRealm : undefined
    const q = realm ? `userRealm:${realm}` : 'userStatus:ACTIVE'
    const count = (ex: Exchange) => (Array.isArray(ex.json) ? `${ex.json.length} record(s)` : `status ${ex.status}, not an array`)
    const ids = (ex: Exchange) => (Array.isArray(ex.json) ? ex.json.map((u) => (isRecord(u) ? String(u.userIdentifier) : '?')) : [])
    const all = await a.searchUsers(q)
    const take1 = await a.searchUsers(q, { take: 1 })
    const skip1 = await a.searchUsers(q, { skip: 1 })
    const sorted = await a.searchUsers(q, { sort: 'userName:desc' })
    judge.observe(`q=${q}: no paging → ${count(all)}; take=1 → ${count(take1)}`)
    const allIds = ids(all)
    judge.observe(`skip=1 → ${count(skip1)}${allIds.length > 1 ? `; first is the unpaged second: ${ids(skip1)[0] === allIds[1]}` : ''}`)
    const names = Array.isArray(sorted.json) ? sorted.json.map((u) => (isRecord(u) ? String(u.userName) : '?')) : []
    const desc = names.every((n, i) => i === 0 || names[i - 1]!.toLowerCase() >= n.toLowerCase())
    judge.observe(`sort=userName:desc → ${count(sorted)}; in descending userName order: ${desc}`)
  })

  check('users.search.no-match', 'answers an empty array for a *fragment* no user has', async ({ a, fake, judge }) => {
    const fragment = fake.string.alphanumeric(24)
    const ex = await a.searchUsers(`userName:*${fragment}*`)
    const found = usersOf(ex, judge)
    judge.match(found, match.when(`userName:*${fragment}* (no user name contains ${fragment})`, match.size('', 0)), ex)
  })
})
