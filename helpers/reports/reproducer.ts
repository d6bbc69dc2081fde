/**
 * Reproducers and the HAR: a failure replayed by hand, outside the suite. A reproducer is a POSIX sh script
 * of curl calls that signs the run's accounts in from the variables of .env (never a value: the recorded
 * exchanges are redacted before they get here), replays the check's requests up to the one that failed and
 * exits 1 when the deviation shows, 0 when it does not (reproducerOf).
 */
import { accountLabel, type LoggedExchange } from '../http/recorder'
import { redact, REDACTION_MASK, type SentSecret } from '../http/redact'

/** What a reproducer needs of the run beyond the check's exchanges: where, and which values were the run's own. */
export interface ReplayContext {
  /** The target's origin: named in the script's header only (BASE_URL comes from the environment). */
  origin: string
  /** Path of the target URL before the API prefixes ('' when none). */
  basePath?: string
  userApiPath?: string
  messageApiPath?: string
  /** The run's id: part of every channel name and device id it made; the script puts a fresh one in its place. */
  runId?: string
  clientId?: string
  /** The run's accounts: their names and user ids become the script's variables. */
  accounts?: Partial<Record<'A' | 'B' | 'C', { userName: string; userId: string }>>
}

/** Days from the run's time within which a timestamp in a request is made relative to the script's time. */
const NEAR_DAYS = 3
/** Shortest server-made value captured from an answer for later requests (shorter ones are too common to find). */
const MIN_CAPTURE = 6

/** A literal of the run, and the shell expression that stands for it in the script. */
type Swap = [literal: string, expr: string]

/** Text as one double-quoted sh word, with the run's own values replaced by the script's variables. */
function dq(text: string, swaps: readonly Swap[], at?: string): string {
  const esc = (t: string) => t.replace(/[\\"$`]/g, (c) => `\\${c}`)
  // Timestamps near the run's time become the same distance from the script's time (a fetch window of "now").
  const dates = /\d{4}-\d{2}-\d{2}T\d{2}(?::|%3A)\d{2}(?::|%3A)\d{2}(?:\.\d{1,3})?Z/gi
  let out = ''
  let last = 0
  const parts: string[] = []
  for (const m of text.matchAll(dates)) {
    const t = Date.parse(decodeURIComponent(m[0]))
    const base = at ? Date.parse(at) : NaN
    if (Number.isNaN(t) || Number.isNaN(base) || Math.abs(t - base) > NEAR_DAYS * 86_400_000 || swaps.some(([lit]) => lit.includes(m[0]))) continue
    parts.push(swap(text.slice(last, m.index), swaps, esc), `$(at ${t - base} ${/%3A/i.test(m[0]) ? 1 : 0})`)
    last = m.index + m[0].length
  }
  parts.push(swap(text.slice(last), swaps, esc))
  out = parts.join('')
  return `"${out}"`
}

function swap(text: string, swaps: readonly Swap[], esc: (t: string) => string): string {
  const live = swaps.filter(([lit]) => lit && text.includes(lit))
  if (!live.length) return esc(text)
  // Longest literal first, so a user id is not cut by a shorter value inside it.
  const [lit, expr] = [...live].sort((x, y) => y[0].length - x[0].length)[0]!
  return text
    .split(lit)
    .map((piece) => swap(piece, swaps, esc))
    .join(expr)
}

/** Single-quoted for sh: nothing inside is expanded. */
function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}

/** Headers that curl sets itself, that say nothing about the call, or that the script sets (authorization). */
const SKIP_HEADERS = /^(host|content-length|connection|accept-encoding|user-agent|authorization)$/i

/** The account whose password a redacted sign-in body held, from the user name in it. */
function passwordOwner(body: string, ctx: ReplayContext): 'A' | 'B' | 'C' | undefined {
  for (const key of ['A', 'B', 'C'] as const) {
    const name = ctx.accounts?.[key]?.userName
    if (name && (body.includes(`=${encodeURIComponent(name)}`) || body.includes(`"${name}"`))) return key
  }
  return undefined
}

/** Fields whose values the recorded exchanges hold redacted, and the variable each value comes from in a script. */
const SECRET_FIELDS = ['password', 'client_secret', 'refresh_token', 'access_token', 'token', 'otpCode'] as const
const valueVar = (field: string, owner: string | undefined) =>
  field === 'password'
    ? owner
      ? `\${USER_${owner}_PASSWORD}`
      : '${SECRET:?set SECRET: the password the suite does not print}'
    : field === 'client_secret'
      ? '${CLIENT_SECRET:?set CLIENT_SECRET (as in .env)}'
      : '${TOKEN_O}'

/** The variable of .env a derivation names, as the account it belongs to (`USER_A_PASSWORD` → A). */
const accountOfVar = (name: string) => /^USER_([ABC])_PASSWORD$/.exec(name)?.[1] as 'A' | 'B' | 'C' | undefined

/**
 * A password the request sent, made again from .env as the record says it was made: the account's password
 * itself, its first characters, or it with the run's suffix (`form`: the suffix percent-encoded, as in a query
 * or form; else as in a JSON string). Shell text inside a double-quoted word; none of it is the secret.
 */
function derivedValue(s: SentSecret, form: boolean): string | undefined {
  if (!/^(USER_[ABC]_PASSWORD|CLIENT_SECRET)$/.test(s.from)) return undefined
  if (s.how === 'same') return `\${${s.from}}`
  if (s.how === 'prefix') return `$(printf '%.${s.length}s' "$${s.from}")`
  if (s.how === 'swapcase') return `$(printf '%s' "$${s.from}" | tr 'a-zA-Z' 'A-Za-z')`
  const text = (t: string) => (form ? encodeURIComponent(t) : JSON.stringify(t).slice(1, -1)).replace(/[\\"$`]/g, (c) => `\\${c}`)
  if (s.how === 'prefixed') return `${text(s.prefix)}\${${s.from}}`
  return `\${${s.from}}${text(s.suffix)}`
}

/**
 * The redacted fields of a request's url or body (`password=«redacted»`, `"password":"«redacted»"`) as
 * placeholders, each with the shell text the script puts there: the field's name from a variable (written out,
 * `password=$…` would itself look like a secret to the redaction every reproducer goes through), its value made
 * from .env as the record says it was made, else the variable of the account the request names.
 */
function maskedFields(text: string, where: 'url' | 'body', e: LoggedExchange, owner: string | undefined): { text: string; swaps: Swap[]; fields: string[] } {
  const swaps: Swap[] = []
  const fields: string[] = []
  const count = new Map<string, number>()
  const placeholder = (field: string, form: boolean, shell: (value: string) => string) => {
    const nth = (count.get(field) ?? 0) + 1
    count.set(field, nth)
    const sent = e.secrets?.find((s) => s.in === where && s.field === field && s.nth === nth)
    const value = (sent && derivedValue(sent, form)) ?? valueVar(field, owner)
    const mark = `\u0000${where}${swaps.length}\u0000`
    fields.push(field)
    swaps.push([mark, shell(value)])
    return mark
  }
  const out = text
    .replace(new RegExp(`\\b(${SECRET_FIELDS.join('|')})=${REDACTION_MASK}`, 'g'), (_, f: string) => placeholder(f, true, (v) => `\${F_${f}}=${v}`))
    .replace(new RegExp(`"(${SECRET_FIELDS.join('|')})"(\\s*):(\\s*)"${REDACTION_MASK}"`, 'g'), (_, f: string) =>
      placeholder(f, false, (v) => `\\"\${F_${f}}\\":\\"${v}\\"`),
    )
  return { text: out, swaps, fields }
}

/** The accounts whose passwords a request sent: named by the record's derivations, else by the user name it sent. */
function passwordOwners(e: LoggedExchange, ctx: ReplayContext): ('A' | 'B' | 'C')[] {
  const named = (e.secrets ?? []).map((s) => accountOfVar(s.from)).filter((k) => k !== undefined)
  const text = `${e.url} ${e.requestBody ?? ''}`
  const owner = text.includes(REDACTION_MASK) ? passwordOwner(text, ctx) : undefined
  return [...new Set([...named, ...(owner ? [owner] : [])])]
}

/** Secret fields whose values the server makes afresh (a replay gets other ones). */
const TOKEN_FIELDS = ['access_token', 'refresh_token', 'token'] as const

/** The string values of an answer's fields, in order, with the index of each among the same key's values. */
function stringFields(body: string): { key: string; value: string; nth: number }[] {
  const seen = new Map<string, number>()
  const out: { key: string; value: string; nth: number }[] = []
  for (const m of body.matchAll(/"([A-Za-z_][\w]*)"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) {
    const n = (seen.get(m[1]!) ?? 0) + 1
    seen.set(m[1]!, n)
    out.push({ key: m[1]!, value: m[2]!, nth: n })
  }
  return out
}

/** One line of a failure message turned into a test on the replayed answer: a shell condition true when the deviation shows. */
interface Test {
  says: string
  deviates: string
  /** The wanted value came with a reason (`(A's user id)`): it may be another answer's, so it is tested only as a value the script knows. */
  sourced?: boolean
  /** A value of another answer the test compares with (a time): the script captures it where the run's answers had it. */
  captures?: string
  /** The test needs how often this account was listed by the read before the request and by the same read after it. */
  listed?: Key
}

const JSON_SCALAR = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|"(?:[^"\\{}]|\\.)*")$/

/** A JSON scalar as an ERE that matches it after `"key":` in a body. */
function scalarRe(value: string): string {
  return value.replace(/[.[\]()*+?^$|\\{}]/g, (c) => `\\${c}`)
}

function valueOf(text: string): string | undefined {
  // The value's type, and a reason after it that names no other place in the answer (`(A's user id)`): a reason
  // pointing into the answer (`(the length of /sentList)`) makes the value relative to it, so no test.
  const v = text.replace(/ \((?:number|string|boolean|null|object|array|undefined)\)(?: \([^/]*\))?$/, '').trim()
  return JSON_SCALAR.test(v) ? v : undefined
}

function keyOf(pointer: string): string | undefined {
  const tokens = pointer.split('/').filter((t) => t && !/^\d+$/.test(t))
  const last = tokens.at(-1)
  return last && /^[A-Za-z_]\w*$/.test(last) ? last : undefined
}

/** A test that the body has `"key":` (with `value`; `shape`: any value with the same characters but digits). */
const has = (key: string, value?: string, shape = false) => {
  const re = value === undefined ? '' : shape ? scalarRe(value).replace(/[0-9]/g, '[0-9]') : scalarRe(value)
  return `has ${sq(`"${key}"[[:space:]]*:${value === undefined ? '' : `[[:space:]]*${re}([^0-9.eE]|$)`}`)}`
}

/**
 * For a field missing at `pointer` (`/0/channelName`) in one record of a list: a key of that record that every record
 * of the run's list has, once, and that the run's whole answer holds once per record, so counting it in an answer
 * counts the records. Undefined when the run's answer shows no such key (it is cut, say).
 */
function countedSibling(runBody: string, pointer: string, keys: readonly string[]): string | undefined {
  let list: unknown
  try {
    list = JSON.parse(runBody)
  } catch {
    return undefined
  }
  const path = pointer.split('/').slice(1, -1)
  const at = path.findLastIndex((t) => /^\d+$/.test(t))
  if (at < 0) return undefined
  for (const t of path.slice(0, at)) list = (list as Record<string, unknown> | undefined)?.[t]
  if (!Array.isArray(list) || path.length !== at + 1) return undefined
  const records = list as unknown[]
  return keys.find(
    (k) =>
      /^\w+$/.test(k) &&
      records.every((r) => r !== null && typeof r === 'object' && Object.hasOwn(r, k)) &&
      runBody.match(new RegExp(`"${k}"\\s*:`, 'g'))?.length === records.length,
  )
}

/**
 * The tests a failure message states about its exchange: status, missing, undocumented and wrong-valued fields
 * (`runBody`: the run's answer, which tells how a field missing from one record of a list is tested).
 */
export function testsOf(message: string, runBody?: string): Test[] {
  const tests: Test[] = []
  // The head (`[clause LEVEL] METHOD url → status`) names the exchange; a finding's message may have none.
  for (const raw of message.split('\n').filter((l) => !/^\[[^\]]+\] /.test(l))) {
    const line = raw.trim().replace(/^(MUST|SHOULD) /, '')
    // A redacted value is no value to test for (and the script must not hold the mask).
    if (line.includes(REDACTION_MASK)) continue
    let m = /^status:? (?:got )?(\d{3}), want (.+)$/.exec(line)
    if (m) {
      const want = m[2]!.trim()
      if (want === '2xx') tests.push({ says: 'status 2xx', deviates: 'case $STATUS in 2??) false ;; *) true ;; esac' })
      else if (/not 2xx/.test(want)) tests.push({ says: 'a refusal (not 2xx)', deviates: 'case $STATUS in 2??) true ;; *) false ;; esac' })
      else if (/^\d{3}( or \d{3})*$/.test(want)) tests.push({ says: `status ${want}`, deviates: `case $STATUS in ${want.split(' or ').join('|')}) false ;; *) true ;; esac` })
      continue
    }
    m = /^content-type: (.*)$/.exec(line)
    if (m) {
      tests.push({ says: 'content type application/json', deviates: 'case $CTYPE in application/json* | application/*+json*) false ;; *) true ;; esac' })
      continue
    }
    m = /^(\/\S*): required property '(\w+)' is missing(?:; got an object with keys ([\w, ]+))?/.exec(line)
    if (m) {
      // Missing from one record of a list: counted against a field every record of the run's list had once.
      const sibling = m[3] && runBody !== undefined ? countedSibling(runBody, m[1]!, m[3].split(', ')) : undefined
      if (sibling)
        tests.push({
          says: `every record with "${sibling}" has the property "${m[2]}"`,
          deviates: `[ "$(count ${sq(`"${sibling}"[[:space:]]*:`)})" -gt "$(count ${sq(`"${m[2]}"[[:space:]]*:`)})" ]`,
        })
      else tests.push({ says: `the answer has the property "${m[2]}"`, deviates: `! ${has(m[2]!)}` })
      continue
    }
    m = /^(\/\S*): undocumented property '(\w+)'/.exec(line)
    if (m) {
      tests.push({ says: `the answer has no property "${m[2]}"`, deviates: has(m[2]!) })
      continue
    }
    m = /^(\/\S*): must be [^;]+; got (.+)$/.exec(line)
    if (m) {
      const key = keyOf(m[1]!)
      const got = valueOf(m[2]!)
      // The value's shape, digits aside: a time or an id the replay gets is another one of the same wrong form.
      if (key && got !== undefined) tests.push({ says: `"${key}" is not of the form ${got} (${line})`, deviates: has(key, got, true) })
      continue
    }
    // A number the answer must state: how often an account was listed before the request less after it.
    m = /^\/(\w+): .+ does not state \d+ \(([ABC]) was listed \d+ time\(s\) before the .+ and \d+ after\)$/.exec(line)
    if (m) {
      tests.push({
        says: `"${m[1]}" states how many times ${m[2]} left the list (listed before the request less after it), in digits or in words`,
        deviates: `! states "$(nth ${m[1]} 1)" "$((LISTED_BEFORE - LISTED_AFTER))"`,
        listed: m[2] as Key,
      })
      continue
    }
    // A time wanted later (earlier) than another answer's: compared with that answer's value as the replay gets it.
    m = /^(?:[^/]+?: )?\/(\w+): got (.+?), want (later|earlier) than [^"]*?"((?:[^"\\]|\\.)*)" \(string\)$/.exec(line)
    if (m) {
      const other = JSON.parse(`"${m[4]}"`) as string
      tests.push({
        says: `"${m[1]}" is ${m[3]} than ${other} (as the answer that had it in the run answers now)`,
        deviates: `not_${m[3]} "$(nth ${m[1]} 1)" ${sq(other)}`,
        sourced: true,
        captures: other,
      })
      continue
    }
    // A value the answer must hold once, held more often (`(root): got "a1…" (string) (account A) 2 times (elements 0, 1),
    // want it once`, a user listed twice): the string counted as it is written in JSON.
    m = /^(?:[^/]+?: )?(?:\/\S*|\(root\)): got (.+?) \d+ times \(elements [\d, ]+\), want it once$/.exec(line)
    if (m) {
      const got = valueOf(m[1]!)
      // A string only: its quotes bound it; a number's digits would be counted inside other numbers too.
      if (got?.startsWith('"'))
        tests.push({ says: `${got} once`, deviates: `[ "$(count ${sq(scalarRe(got))})" -gt 1 ]`, ...(/\) \([^/]*\)$/.test(m[1]!) ? { sourced: true } : {}) })
      continue
    }
    // Possibly after a context (`B's read: /0/sender: got …`), which names a read of the same answer.
    m = /^(?:[^/]+?: )?(\/\S*): got (.+?), want (.+)$/.exec(line)
    if (m) {
      const key = keyOf(m[1]!)
      // A got list or object with a want of another kind (`got 1 element(s) […] (array), want 0`): the want is its size.
      const want = /\((?:array|object)\)$/.test(m[2]!) ? undefined : valueOf(m[3]!)
      // A want stated as a value is tested; one stated relative to the answer ("the length of /sentList") is not,
      // and neither is the got value then: in the replay's state a correct server may answer it.
      // A sourced string (`want "…" (string) (the owner's first GET's)`) is another answer's value: captured where
      // the run's answers had it, so the replay compares with the value its own answer gave.
      const sourced = /\) \([^/]*\)$/.test(m[3]!)
      const other = sourced && want?.startsWith('"') && /\(the [^)]*'s\)$/.test(m[3]!) ? (JSON.parse(want) as string) : undefined
      if (key && other !== undefined)
        tests.push({ says: `"${key}" is ${want} (as the answer that had it in the run answers now)`, deviates: `[ "$(nth ${key} 1)" != ${sq(other)} ]`, sourced: true, captures: other })
      else if (key && want !== undefined)
        tests.push({ says: `"${key}" is ${want}`, deviates: `! ${has(key, want)}`, ...(sourced ? { sourced: true } : {}) })
    }
  }
  return tests
}

/** Two reads of the same request, one right after the other: a poll (its answers may differ while the server catches up). */
function samePoll(a: LoggedExchange, b: LoggedExchange): boolean {
  const auth = (e: LoggedExchange) => Object.entries(e.requestHeaders).find(([k]) => /^authorization$/i.test(k))?.[1]
  return (
    (a.method === 'GET' || a.method === 'HEAD') &&
    a.method === b.method &&
    a.url === b.url &&
    a.account === b.account &&
    a.requestBody === b.requestBody &&
    auth(a) === auth(b)
  )
}

/** A body as the script compares it when the message states no test it can make: times, long ids and the run id levelled. */
function levelled(body: string, runId: string | undefined): string {
  // Tokens the server makes (redacted in the record, a fresh value in the replay) are levelled too.
  let out = body
    .replace(new RegExp(`"(${TOKEN_FIELDS.join('|')})"\\s*:\\s*"[^"]*"`, 'g'), 'SECRET')
    .replace(/\d{4}-\d{2}-\d{2}T[0-9:.]*Z?/g, 'T')
    .replace(/[0-9a-f]{16,}/gi, 'ID')
  if (runId) out = out.split(runId).join('RUN')
  return out
}

const PRELUDE = String.raw`set -u
NL='
'
: "${'$'}{BASE_URL:?set BASE_URL to the target (as in .env)}"
: "${'$'}{CLIENT_ID:?set CLIENT_ID (as in .env)}"
UP=${'$'}{USER_API_PATH:-@UP@}
MP=${'$'}{MESSAGE_API_PATH:-@MP@}
# A fresh run id in place of the run's: new channel names and device ids, every time the script runs.
R=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
TOKEN_O=
# curl, keeping the answer's status and content type apart from its body (STATUS, CTYPE, BODY).
call() {
  who=$1
  shift
  case $who in A) TOK=$TOKEN_A ;; B) TOK=$TOKEN_B ;; C) TOK=$TOKEN_C ;; O) TOK=$TOKEN_O ;; *) TOK= ;; esac
  if [ -n "$TOK" ]; then OUT=$(curl -sS -w "$NL%{content_type}$NL%{http_code}" -H "Authorization: Bearer ${'$'}{TOK}" "$@") || exit 2
  else OUT=$(curl -sS -w "$NL%{content_type}$NL%{http_code}" "$@") || exit 2; fi
  STATUS=${'$'}{OUT##*"$NL"}
  OUT=${'$'}{OUT%"$NL"*}
  CTYPE=${'$'}{OUT##*"$NL"}
  BODY=${'$'}{OUT%"$NL"*}
  printf '  → %s %.300s\n' "$STATUS" "$BODY"
}
# A delete that never stops the script (its cleanup).
del() {
  case $1 in A) TOK=$TOKEN_A ;; B) TOK=$TOKEN_B ;; C) TOK=$TOKEN_C ;; O) TOK=$TOKEN_O ;; MADE_BY_*) eval 'TOK=$'"$1" ;; *) TOK= ;; esac
  if [ -n "$TOK" ]; then curl -sS -o /dev/null -X DELETE -H "Authorization: Bearer ${'$'}{TOK}" "$2" || :
  else curl -sS -o /dev/null -X DELETE "$2" || :; fi
}
# Step N answered in the class the run's did (2xx or not): else this server does not follow the run's path.
step() {
  case $STATUS in 2??) c=2 ;; *) c=x ;; esac
  if [ "$c" != "$2" ]; then
    echo "step $1 answered $STATUS where the run got $3: this server does not take the run's path to the deviation, so it is not judged here"
    exit 2
  fi
}
# Is the ERE $1 in the answer's body?
has() { printf '%s' "$BODY" | grep -Eq -- "$1"; }
# Times $1 and $2 of one form (as long as each other) where $1 is not later (earlier) than $2, compared as text.
not_later() { [ ${'$'}{#1} -eq ${'$'}{#2} ] && [ "$(printf '%s\n%s\n' "$1" "$2" | LC_ALL=C sort | tail -n 1)" = "$2" ]; }
not_earlier() { [ ${'$'}{#1} -eq ${'$'}{#2} ] && [ "$(printf '%s\n%s\n' "$1" "$2" | LC_ALL=C sort | head -n 1)" = "$2" ]; }
# Does the text $1 state the whole number $2 standing alone, in digits or (up to ten) in words? Where it states
# no number at all, it is given the benefit of the doubt.
states() {
  case $2 in 0) w='no|none|zero' ;; 1) w='one|single' ;; 2) w=two ;; 3) w=three ;; 4) w=four ;; 5) w=five ;;
    6) w=six ;; 7) w=seven ;; 8) w=eight ;; 9) w=nine ;; 10) w=ten ;; *) w= ;; esac
  printf '%s' "$1" | awk -v n="$2" -v w="^($w)$" 'BEGIN { RS = "\001" } { t = tolower($0); gsub(/[^0-9a-z_.-]+/, " ", t); k = split(t, a, " ")
    for (i = 1; i <= k; i++) { if (a[i] ~ /^[0-9]+$/) { any = 1; if (a[i] + 0 == n) f = 1 } else if (w != "^()$" && a[i] ~ w) f = 1 } }
    END { exit (f || !any) ? 0 : 1 }'
}
# How often the ERE $1 is in the answer's body.
count() { printf '%s' "$BODY" | awk -v re="$1" 'BEGIN { RS = "\001" } { n += gsub(re, "") } END { print n + 0 }'; }
# The $2-th string value of the field "$1" in the answer's body.
nth() {
  printf '%s' "$BODY" | awk -v k="$1" -v n="$2" 'BEGIN { RS = "\001" } {
    s = $0; re = "\"" k "\"[ \t\r\n]*:[ \t\r\n]*\"([^\"\\\\]|\\\\.)*\""; c = 0
    while (match(s, re)) { c++; v = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
      if (c == n) { sub(/^"[^"]*"[ \t\r\n]*:[ \t\r\n]*"/, "", v); sub(/"$/, "", v); printf "%s", v; exit } } }'
}
# ISO time $1 ms from now (UTC); $2 = 1: colons as %3A, as in a query.
at() {
  awk -v off="$1" -v enc="$2" 'BEGIN { srand(); ms = srand() * 1000 + off; t = int(ms / 1000); f = ms - t * 1000
    d = int(t / 86400); r = t - d * 86400; h = int(r / 3600); mi = int((r - h * 3600) / 60); se = r - h * 3600 - mi * 60
    z = d + 719468; era = int(z / 146097); doe = z - era * 146097
    yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365); y = yoe + era * 400
    doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100)); mp = int((5 * doy + 2) / 153)
    dd = doy - int((153 * mp + 2) / 5) + 1; m = mp < 10 ? mp + 3 : mp - 9; if (m <= 2) y++
    c = enc == 1 ? "%3A" : ":"; printf "%04d-%02d-%02dT%02d%s%02d%s%02d.%03dZ", y, m, dd, h, c, mi, c, se, f }'
}
# The field's name comes from a variable: the text of this script must not look like a secret to the redaction.
PW_FIELD=password
signin() {
  OUT=$(curl -sS -w "$NL%{http_code}" -X POST -H "MMS-DEVICE-ID: $3" --data-urlencode grant_type=password \
    --data-urlencode "username=$1" --data-urlencode "$PW_FIELD=$2" --data-urlencode "client_id=$CLIENT_ID" \
    --data-urlencode scope=public "$BASE_URL$UP/user/session") || exit 2
  STATUS=${'$'}{OUT##*"$NL"}
  BODY=${'$'}{OUT%"$NL"*}
  case $STATUS in 2??) ;; *) echo "the sign-in of $1 answered $STATUS: check BASE_URL, USER_API_PATH, CLIENT_ID and the account" >&2; exit 2 ;; esac
}`

type Key = 'A' | 'B' | 'C'
const KEYS = ['A', 'B', 'C'] as const

/** The check's requests a script replays: up to the one the failure is about, each poll once (pickSteps). */
interface Picked {
  picked: LoggedExchange[]
  /** Reads of the run left out: repeats of the next one (polls). */
  polls: number
  /** The request the failure is about. */
  last: LoggedExchange
}

/**
 * Stage 1, the requests to replay: the check's own (not its cleanup) up to the one the failure is about, named by
 * the message's head line, else by the recorder (`failedAt`, `METHOD url → status`: a finding's message may have
 * no head, and the check's last request is another one), else by the status the message says it got.
 */
function pickSteps(log: readonly LoggedExchange[], message: string | undefined, failedAt: string | undefined): Picked | undefined {
  const steps = log.filter((e) => e.phase === 'check')
  if (!steps.length) return undefined
  const head = /^\[[^\]]+\] (\S+) (\S+) → (\d{3})/m.exec(message ?? '') ?? /^(\S+) (\S+) → (\d{3})$/.exec(failedAt ?? '')
  let end = steps.length
  if (head) {
    const at = steps.findLastIndex((e) => e.method === head[1] && e.url === head[2] && String(e.status) === head[3])
    if (at >= 0) end = at + 1
  } else {
    // A message that names no exchange but the status it got (`status 401, want 403`, a refusal's SHOULD): the
    // last request answered with that status, not the check's last request (a read-back after it, say).
    const got = /^\s*(?:(?:MUST|SHOULD) )?status:? (?:got )?(\d{3}), want /m.exec(message ?? '')?.[1]
    const at = got ? steps.findLastIndex((e) => String(e.status) === got) : -1
    if (at >= 0) end = at + 1
  }
  // A read repeated as is (a poll waiting for the server to show a write) is replayed once, as its last answer:
  // a server that shows the write at once would otherwise fail a poll's earlier answer and leave the path.
  const picked = steps.slice(0, end).filter((e, i, all) => !(i + 1 < all.length && samePoll(e, all[i + 1]!)))
  return { picked, polls: end - picked.length, last: picked.at(-1)! }
}

/** Stage 2, the run's own values (run id, client id, the accounts' ids and names) and the script's variables for them. */
function runSwaps(ctx: ReplayContext): Swap[] {
  const swaps: Swap[] = []
  if (ctx.runId) swaps.push([ctx.runId, '${R}'])
  if (ctx.clientId) swaps.push([ctx.clientId, '${CLIENT_ID}'])
  for (const key of KEYS) {
    const acc = ctx.accounts?.[key]
    if (!acc) continue
    if (acc.userId) swaps.push([acc.userId, `\${ID_${key}}`])
    if (acc.userName) swaps.push([acc.userName, `\${USER_${key}_NAME}`], [encodeURIComponent(acc.userName), `\${USER_${key}_NAME}`])
  }
  return swaps
}

/** The accounts the script signs in: those that sent a request, that a request names, whose password went, or that the judged answer names. */
function accountsUsed({ picked, last }: Picked, ctx: ReplayContext): Set<Key> {
  const used = new Set<Key>()
  for (const e of picked) {
    if (e.account === 'A' || e.account === 'B' || e.account === 'C') used.add(e.account)
    const text = `${e.url} ${e.requestBody ?? ''}`
    for (const key of KEYS) {
      const acc = ctx.accounts?.[key]
      if (acc && ((acc.userId && text.includes(acc.userId)) || (acc.userName && text.includes(acc.userName)))) used.add(key)
    }
    for (const key of passwordOwners(e, ctx)) used.add(key)
  }
  // An account named in the judged answer is signed in too: its user id is then known to the script, and told apart.
  for (const key of KEYS) if (ctx.accounts?.[key]?.userId && last.responseBody.includes(ctx.accounts[key]!.userId)) used.add(key)
  return used
}

/** What stage 3 made of the requests: the lines replaying them, and what the later stages need to know of them. */
interface Replayed {
  lines: string[]
  /** The channels the script makes, by whom and at which path (each deleted on exit). */
  made: { who: string; path: string }[]
  /** Secret-bearing field names the script names through variables (F_password=password …). */
  fields: Set<string>
  /** The script counts how often this account is listed before the request and after it (LISTED_BEFORE, LISTED_AFTER). */
  listed?: Key
}

/**
 * Stage 3, the requests as curl calls: the run's values as the script's variables, the passwords made from .env
 * as the record says they were made, the token of the check's own sign-in that the run sent, the expected
 * answer's class beside each, and the values the server made that later requests use captured from the answers.
 * `swaps` grows with the captured values.
 */
function replaySteps(
  { picked }: Picked,
  ctx: ReplayContext,
  swaps: Swap[],
  paths: Paths,
  wanted: ReadonlySet<string>,
  listedBy?: Key,
): Replayed {
  const lines: string[] = []
  const made: Replayed['made'] = []
  const fields = new Set<string>()
  const capture = capturer(picked, swaps, wanted)
  let slept = 0
  // The read before the request that listed the account: counted, and made again after the request.
  const listedId = listedBy ? ctx.accounts?.[listedBy]?.userId : undefined
  const beforeAt = listedId ? picked.findLastIndex((e, i) => i < picked.length - 1 && e.method === 'GET' && e.responseBody.includes(`"${listedId}"`)) : -1
  const counted = `count "\\"$ID_${listedBy}\\""`
  let readAgain: string | undefined
  // The check's own sign-ins whose token a later request sent: each keeps its token apart (TOKEN_S<order>).
  const tokenKept = new Set(picked.map((e) => e.tokenFrom).filter((s): s is number => s !== undefined && picked.some((p) => p.seq === s)))

  picked.forEach((e, i) => {
    const n = i + 1
    const final = i === picked.length - 1
    const { who, path, call } = curlCall(e, ctx, swaps, paths, fields)
    const ok = e.status >= 200 && e.status < 300
    // Only where the judgement compares times: elsewhere a pause of the run (a slow machine, a poll) is not replayed.
    const pause = i > 0 && wanted.size ? pauseBefore(picked[i - 1]!, e) : 0
    if (pause) slept += pause
    lines.push(
      '',
      ...(pause && slept <= MAX_SLEEP_S ? [`# The run waited ${pause === 1 ? 'about a second' : `${pause} s or so`} before this request (a time it compares moves on): so does the script.`, `sleep ${pause}`] : []),
      `# ${n}. as ${accountLabel(e.account)}: ${e.method} ${e.url}`,
      final ? `# The request the failure is about; the run got ${e.status}.` : `# Expected: ${ok ? '2xx' : 'not 2xx'}, as the run got (${e.status}).`,
      `echo ${sq(`${n}. ${e.endpoint}`)}`,
      ...(who === 'O' && e.tokenFrom !== undefined && tokenKept.has(e.tokenFrom) ? [`TOKEN_O=$TOKEN_S${e.tokenFrom}`] : []),
      call,
    )
    if (!final) lines.push(`step ${n} ${ok ? '2' : 'x'} ${e.status}`)
    if (i === beforeAt) {
      readAgain = call
      lines.push(`LISTED_BEFORE=$(${counted})`)
    }
    if (final && readAgain) lines.push(...listedAfter(readAgain, listedBy!, counted))
    // The check's own sign-in: its token is the one later requests "of the check's own" send.
    if (ok && e.method === 'POST' && /\/user\/session$/.test(path.split('?')[0]!)) {
      lines.push('TOKEN_O=$(nth access_token 1)')
      if (e.seq !== undefined && tokenKept.has(e.seq)) lines.push(`TOKEN_S${e.seq}=$TOKEN_O`)
    }
    // A channel made with a token of the check's own is deleted with that token, not with the last one signed in.
    const madeHere = channelsMade(e, path, who, swaps)
    if (who === 'O' && madeHere.length > 0) {
      lines.push(`MADE_BY_${n}=$TOKEN_O`)
      made.push(...madeHere.map((m) => ({ ...m, who: `MADE_BY_${n}` })))
    } else made.push(...madeHere)
    if (!final) lines.push(...capture(e, i))
  })
  return { lines, made, fields, ...(readAgain ? { listed: listedBy } : {}) }
}

/** Where the API prefixes and the target's base path are. */
type Paths = { base: string; up: string; mp: string }

/**
 * One request as a curl call of the script (`call <who> …`): who sends it (a run account, the check's own token
 * `O`, or none), its headers, its body and url with the run's values as variables and the passwords made from
 * .env; `fields` gets the secret-bearing field names it names through variables. `path` is the url after the prefix.
 */
function curlCall(e: LoggedExchange, ctx: ReplayContext, swaps: readonly Swap[], paths: Paths, fields: Set<string>): { who: string; path: string; call: string } {
  let path = e.url.startsWith(paths.base) ? e.url.slice(paths.base.length) : e.url
  let prefix = ''
  if (path.startsWith(paths.up)) [prefix, path] = ['${UP}', path.slice(paths.up.length)]
  else if (path.startsWith(paths.mp)) [prefix, path] = ['${MP}', path.slice(paths.mp.length)]
  const auth = Object.entries(e.requestHeaders).find(([k]) => /^authorization$/i.test(k))?.[1]
  let who = 'none'
  const args: string[] = []
  if (auth !== undefined) {
    if (e.account === 'A' || e.account === 'B' || e.account === 'C') who = e.account
    else if (auth.includes(REDACTION_MASK)) who = 'O'
    else args.push(`-H ${dq(`Authorization: ${auth}`, swaps)}`)
  }
  for (const [k, v] of Object.entries(e.requestHeaders)) if (!SKIP_HEADERS.test(k)) args.push(`-H ${dq(`${k}: ${v}`, swaps, e.startedAt)}`)
  const owner = passwordOwners(e, ctx)[0]
  const mask: Swap = [REDACTION_MASK, '${SECRET:?set SECRET: a value the suite does not print}']
  const inUrl = maskedFields(path, 'url', e, owner)
  if (e.requestBody !== undefined) {
    const inBody = maskedFields(e.requestBody, 'body', e, owner)
    for (const f of inBody.fields) fields.add(f)
    args.push(`--data-binary ${dq(inBody.text, [...swaps, ...inBody.swaps, mask], e.startedAt)}`)
  }
  for (const f of inUrl.fields) fields.add(f)
  const url = `"\${BASE_URL}${prefix}${dq(inUrl.text, [...swaps, ...inUrl.swaps, mask], e.startedAt).slice(1)}`
  return { who, path, call: `call ${who} -X ${e.method} ${args.join(' ')} ${url}` }
}

/**
 * The captures of values the server made: from the first answer that has one, a value a later request sends
 * (an id, a time) or one the judgement compares with (`wanted`), into a variable V<n> (and V<n>E percent-encoded)
 * that `swaps` then puts in its place.
 */
function capturer(picked: readonly LoggedExchange[], swaps: Swap[], wanted: ReadonlySet<string>): (e: LoggedExchange, i: number) => string[] {
  const captured = new Set<string>()
  let vars = 0
  const sentBefore = (i: number, value: string) => picked.slice(0, i + 1).some((e) => e.url.includes(value) || (e.requestBody ?? '').includes(value))
  const usedLater = (i: number, value: string) =>
    picked.slice(i + 1).some((e) => [value, encodeURIComponent(value)].some((v) => e.url.includes(v) || (e.requestBody ?? '').includes(v)))
  return (e, i) => {
    const lines: string[] = []
    for (const f of stringFields(e.responseBody)) {
      if (f.value.length < MIN_CAPTURE || captured.has(f.value) || f.value.includes(REDACTION_MASK)) continue
      if (swaps.some(([lit]) => lit && f.value.includes(lit)) || sentBefore(i, f.value)) continue
      if (!usedLater(i, f.value) && !wanted.has(f.value)) continue
      captured.add(f.value)
      const v = `V${++vars}`
      lines.push(`${v}=$(nth ${f.key} ${f.nth})`)
      swaps.push([f.value, `\${${v}}`])
      const enc = encodeURIComponent(f.value)
      if (enc !== f.value) {
        lines.push(`${v}E=$(printf '%s' "$${v}" | sed 's/%/%25/g; s/:/%3A/g; s/+/%2B/g; s/#/%23/g; s/ /%20/g; s/\\//%2F/g')`)
        swaps.push([enc, `\${${v}E}`])
      }
    }
    return lines
  }
}

/** The read before the request made again after it, until it lists the account fewer times (a server may lag); the judged answer kept. */
function listedAfter(read: string, who: Key, counted: string): string[] {
  return [
    `# The read before the request, made again: how often it lists ${who} now (up to 5 tries a second apart, while it lists ${who} as often as before).`,
    'JUDGED_BODY=$BODY JUDGED_STATUS=$STATUS JUDGED_CTYPE=$CTYPE',
    'LISTED_AFTER=$LISTED_BEFORE',
    'tries=0',
    'while [ "$LISTED_AFTER" -ge "$LISTED_BEFORE" ] && [ "$tries" -lt 5 ]; do',
    '  if [ "$tries" -gt 0 ]; then sleep 1; fi',
    '  tries=$((tries + 1))',
    `  ${read}`,
    `  LISTED_AFTER=$(${counted})`,
    'done',
    'BODY=$JUDGED_BODY STATUS=$JUDGED_STATUS CTYPE=$JUDGED_CTYPE',
  ]
}

/** Longest sleep between two requests, and all sleeps of one script together, in seconds. */
const MAX_PAUSE_S = 3
const MAX_SLEEP_S = 10

/** Whole seconds the run waited between the end of one request and the start of the next, when it waited a second or more. */
function pauseBefore(prev: LoggedExchange, next: LoggedExchange): number {
  const gap = Date.parse(next.startedAt) - (Date.parse(prev.startedAt) + prev.durationMs)
  return Number.isFinite(gap) && gap >= 1000 ? Math.min(MAX_PAUSE_S, Math.ceil(gap / 1000)) : 0
}

/**
 * The channel a create may make, at the addresses its owner deletes it by on exit: whatever the run's answer was,
 * since the replay's may differ (a clean server makes the channel the run's create was refused); a delete of a
 * channel that is not there is harmless.
 */
function channelsMade(e: LoggedExchange, path: string, who: string, swaps: readonly Swap[]): Replayed['made'] {
  if (!(e.method === 'POST' && /^\/channels$/.test(path.split('?')[0]!) && e.requestBody)) return []
  try {
    const b = JSON.parse(e.requestBody) as { channelName?: unknown; privateChannel?: unknown }
    if (typeof b.channelName !== 'string') return []
    // A private one by its personal address, and by its plain name too: a server that ignored the flag made it public.
    // A public one by its personal address too: a server that made it private anyway keeps it there.
    return (b.privateChannel === true ? ['?personal=true', ''] : ['', '?personal=true']).map((query) => ({
      who,
      path: `\${MP}${dq(`/channels/${encodeURIComponent(b.channelName as string)}${query}`, swaps).slice(1)}`,
    }))
  } catch {
    return [] // not JSON: nothing to delete by name
  }
}

/**
 * Stage 4, the judgement: what the message says is wrong, tested on the replayed answer; where it states no
 * test the script can make, whether the answer is the run's (times, long ids and the run id levelled).
 */
function judgement(
  { picked, last }: Picked,
  message: string | undefined,
  wanted: readonly Test[],
  ctx: ReplayContext,
  swaps: readonly Swap[],
  signed: readonly Key[],
  listed: Key | undefined,
): string[] {
  // The run's own values in a wanted value as the script's variables: a channel's name holds the run id, which
  // the replay has afresh; the accounts the script signs in (their ids are known to it); the captured values.
  const ownValues: Swap[] = [
    ...(ctx.runId ? [[ctx.runId, `'"\${R}"'`] as Swap] : []),
    ...swaps.filter(([, expr]) => /^\$\{V\d+E?\}$/.test(expr)).map(([lit, expr]): Swap => [lit, `'"${expr}"'`]),
    ...signed.flatMap((k): Swap[] => (ctx.accounts?.[k]?.userId ? [[ctx.accounts[k]!.userId, `'"\${ID_${k}}"'`]] : [])),
  ]
  const sentText = picked.map((e) => `${e.url} ${e.requestBody ?? ''}`).join('\n')
  // A long id left in a test after that is one the server made in the run and the script does not capture: the
  // replay's answer holds another, so no test can be made of it (the check's own values it sends again stay).
  const runMade = (d: string) => [...d.matchAll(/[0-9a-f]{16,}/gi)].some((m) => !sentText.includes(m[0]))
  // A value with a reason is tested only where it is one the script knows (an account's id, a captured value):
  // another answer's value the server made (A's one-time code, say) is another one in the replay.
  const tests = wanted
    .map((t) => ({ ...t, deviates: [...ownValues].sort((x, y) => y[0].length - x[0].length).reduce((d, [lit, expr]) => d.split(lit).join(expr), t.deviates) }))
    .filter((t, i) => !runMade(t.deviates) && (!t.sourced || t.deviates !== wanted[i]!.deviates) && (!t.listed || t.listed === listed))
  const judge: string[] = ['', '# The deviation: does the answer show what the run saw?', 'DEV=0']
  const lastAuth = Object.entries(last.requestHeaders).find(([k]) => /^authorization$/i.test(k))?.[1]
  const ownToken = last.tokenFrom !== undefined && picked.some((e) => e.seq === last.tokenFrom)
  if (lastAuth?.includes(REDACTION_MASK) && !['A', 'B', 'C', 'anonymous'].includes(last.account) && !ownToken) {
    // The judged request sent a token of the check's own making (altered, made up, or from a sign-in the script
    // does not replay): the record keeps no token, so the script cannot send that one, and says so rather than judge another.
    judge.push(
      "echo 'not judged: the request the failure is about sent a token of the check'\\''s own making, which the run does not record; compare the answer above with the failure by eye'",
      'exit 2',
    )
  } else if (tests.length) {
    for (const t of tests) judge.push(`if ${t.deviates}; then DEV=1; echo ${sq(`  deviation: the spec wants ${t.says}`)}; fi`)
  } else if (wanted.some((t) => t.captures !== undefined || t.listed)) {
    // The message compares the answer with another one the script could not find again: the run's answer may well
    // be a correct server's too, so the script does not take it for the deviation.
    judge.push(
      "echo 'not judged: the failure compares this answer with a value of another answer, which this script could not find again; compare the answers above with the failure by eye'",
      'exit 2',
    )
  } else if (unchangedRead(picked, last, message, ctx.runId)) {
    // The message says a state changed that must not have; the run's answer to this read is the one it gave
    // before the change, so the change is in another read and a correct server answers this one the same.
    judge.push(
      "echo 'not judged: the failure is a change between a state before and after, and this read answered in the run as it did before it; compare the reads above with the failure by eye'",
      'exit 2',
    )
  } else judge.push(...sameAnswer(picked, last, ctx, swaps, signed))
  judge.push(
    // The failure's head, a query holding a redacted value cut (the script runs no mask, not even in an echo).
    `if [ "$DEV" = 1 ]; then echo ${sq(`DEVIATION SHOWS: ${(message ?? '').split('\n')[0]!.replace(new RegExp(`\\?\\S*${REDACTION_MASK}\\S*`, 'g'), '?…')}`)}; exit 1; fi`,
    "echo 'no deviation: the answer is as the spec wants'",
    'exit 0',
  )
  return judge
}

/**
 * Whether the message states that a state changed (`before X, after Y`) while the run's answer to the judged read
 * is, levelled, the one the same read got earlier in the check: the change does not show in that answer.
 */
function unchangedRead(picked: readonly LoggedExchange[], last: LoggedExchange, message: string | undefined, runId: string | undefined): boolean {
  if (!/: before .+, after .+$/m.test(message ?? '')) return false
  const same = (e: LoggedExchange) => e.method === last.method && e.endpoint === last.endpoint && e.account === last.account
  return picked.slice(0, -1).some((e) => same(e) && e.status === last.status && levelled(e.responseBody, runId) === levelled(last.responseBody, runId))
}

/**
 * The judgement when the message states no test the script can make (an order, a count across answers): the
 * deviation shows when the answer is the run's, its times, long ids and run id aside. The accounts' user ids (who
 * published, who is subscribed) and the long values the check sent itself, which the replay sends again (the tags
 * it added, say), are kept apart.
 */
function sameAnswer(picked: readonly LoggedExchange[], last: LoggedExchange, ctx: ReplayContext, swaps: readonly Swap[], signed: readonly Key[]): string[] {
  const sentText = picked.map((e) => `${e.url} ${e.requestBody ?? ''}`).join('\n')
  const literals = [...new Set([...sentText.matchAll(/[0-9a-f]{16,}/gi)].map((m) => m[0]))]
    .filter((lit) => !swaps.some(([v]) => v && (v.includes(lit) || lit.includes(v))))
    .slice(0, 20)
  const labelled = literals.reduce(
    (b, lit, i) => b.split(lit).join(`LIT${i + 1}`),
    signed.reduce((b, k) => (ctx.accounts?.[k]?.userId ? b.split(ctx.accounts[k]!.userId).join(`USER_${k}`) : b), last.responseBody),
  )
  const runBody = levelled(labelled, ctx.runId)
  // The run's answer holds a redacted value (a password it should not have shown): the script has no copy to compare.
  if (runBody.includes(REDACTION_MASK))
    return ["echo 'not judged: the run'\\''s answer holds a redacted value, so this script has nothing to compare with; compare the answer above with the failure by eye'", 'exit 2']
  return [
    `# Expected: an answer other than the run's (${last.status}, the body below with times, long ids and the run id levelled).`,
    `RUN_BODY=${sq(runBody)}`,
    `GOT_BODY=$(printf '%s' "$BODY" | sed ${signed.map((k) => `-e "s/$ID_${k}/USER_${k}/g" `).join('')}${literals.map((lit, i) => `-e 's/${lit}/LIT${i + 1}/g' `).join('')}${TOKEN_FIELDS.map((f) => `-e 's/"${f}"[[:space:]]*:[[:space:]]*"[^"]*"/SECRET/g'`).join(' ')} -e 's/[0-9]\\{4\\}-[0-9][0-9]-[0-9][0-9]T[0-9:.]*Z\\{0,1\\}/T/g' -e 's/[0-9a-fA-F]\\{16,\\}/ID/g' -e "s/$R/RUN/g")`,
    `if [ "$STATUS" = ${last.status} ] && [ "$GOT_BODY" = "$RUN_BODY" ]; then DEV=1; echo '  deviation: the same answer as the run got'; fi`,
  ]
}

/** Stage 5, the sign-ins of the accounts the script uses, from .env (the others' tokens empty). */
function signinLines(signed: readonly Key[]): string[] {
  const lines = signed.flatMap((key) => [
    `: "\${USER_${key}_NAME:?set USER_${key}_NAME (as in .env)}"`,
    `: "\${USER_${key}_PASSWORD:?set USER_${key}_PASSWORD (as in .env)}"`,
    `signin "$USER_${key}_NAME" "$USER_${key}_PASSWORD" "ct-$R-${key.toLowerCase()}"`,
    `TOKEN_${key}=$(nth access_token 1)`,
    `ID_${key}=$(nth userIdentifier 1)`,
  ])
  return [...lines, ...KEYS.filter((k) => !signed.includes(k)).map((k) => `TOKEN_${k}=`)]
}

/** Stage 5, the cleanup on exit: the channels the script made, deleted by their owners whatever the outcome. */
function cleanupLines(made: Replayed['made']): string[] {
  return [
    '# On exit, whatever the outcome: the channels this script made, deleted by their owners.',
    'cleanup() {',
    ...made.map((m) => `  del ${m.who} "\${BASE_URL}${m.path}`),
    '  :',
    '}',
    "trap 'rc=$?; trap - EXIT; cleanup; exit $rc' EXIT",
    "trap 'exit 2' INT TERM",
  ]
}

/**
 * The reproducer of a failed entry: a POSIX sh script needing curl (and the usual sed, awk, grep, od) and
 * the variables of .env.example. It signs the accounts in itself, replays the check's requests (check phase)
 * up to the one the message names (`METHOD url → status` on its first line), with a fresh run id in channel
 * names and the ids the server made captured from its answers, states the expected answer beside each
 * request, and ends with exit 1 when the deviation shows, 0 when it does not, 2 when it could not be judged
 * (a sign-in or an earlier step did not answer as in the run). The channels it made are deleted on exit.
 * Made in stages: the requests (pickSteps), the run's values (runSwaps, accountsUsed), the calls (replaySteps),
 * the judgement, then the sign-ins and cleanup around them.
 */
export function reproducerOf(
  log: readonly LoggedExchange[],
  message: string | undefined,
  context: string | ReplayContext,
  entry: { id?: string; clause?: string; failedAt?: string } = {},
): string | undefined {
  const ctx: ReplayContext = typeof context === 'string' ? { origin: context } : context
  const steps = pickSteps(log, message, entry.failedAt)
  if (!steps) return undefined
  const paths: Paths = {
    base: ctx.basePath && ctx.basePath !== '/' ? ctx.basePath.replace(/\/$/, '') : '',
    up: ctx.userApiPath ?? '/mobile/api/com.vendor.server',
    mp: ctx.messageApiPath ?? '/message/api/v2',
  }
  const swaps = runSwaps(ctx)
  const used = accountsUsed(steps, ctx)
  const wanted = testsOf(message ?? '', steps.last.responseBody)
  const captures = new Set(wanted.flatMap((t) => (t.captures ? [t.captures] : [])))
  const replayed = replaySteps(steps, ctx, swaps, paths, captures, wanted.find((t) => t.listed)?.listed)
  const signed = KEYS.filter((k) => used.has(k) || replayed.made.some((m) => m.who === k) || replayed.listed === k)
  const judge = judgement(steps, message, wanted, ctx, swaps, signed, replayed.listed)
  const says = (message ?? '').split('\n').slice(0, 8)
  const lines = [
    '#!/bin/sh',
    `# Reproducer${entry.id ? ` of ${entry.id}` : ''}${entry.clause ? ` [${entry.clause}]` : ''}, from a run against ${ctx.origin}.`,
    '# The failure:',
    ...says.map((l) => `#   ${l}`),
    '#',
    '# Needs sh and curl, and the variables of .env.example (BASE_URL, CLIENT_ID, USER_A_NAME, USER_A_PASSWORD, …,',
    '# USER_API_PATH, MESSAGE_API_PATH): `set -a; . ./.env; set +a; sh this-file`. It holds no secret.',
    '# Exit 1: the deviation shows; 0: it does not; 2: not judged (a sign-in or an earlier step answered otherwise).',
    ...(log.length >= 40 ? ['# The check made more requests than the run keeps: some from the middle may be missing here.'] : []),
    ...(steps.polls ? [`# ${steps.polls} repeated read${steps.polls === 1 ? '' : 's'} of the run (polls while the server caught up) made once each here.`] : []),
    PRELUDE.replace('@UP@', paths.up).replace('@MP@', paths.mp),
    ...[...replayed.fields].sort().map((f) => `F_${f}=${f}`),
    ...signinLines(signed),
    ...cleanupLines(replayed.made),
    ...replayed.lines,
    ...judge,
  ]
  return `${redact(lines.join('\n'))}\n`
}

/** HAR 1.2 of the run's exchanges (redacted), for browser devtools and other HTTP tools. */
export function buildHar(log: readonly LoggedExchange[], origin: string, creator: { name: string; version: string }): string {
  const entries = [...log].sort((x, y) => x.startedAt.localeCompare(y.startedAt)).map((e) => {
    const url = new URL(e.url, origin)
    const reqType = e.requestHeaders['content-type'] ?? 'application/octet-stream'
    return {
      startedDateTime: e.startedAt,
      time: e.durationMs,
      comment: `${e.endpoint}, as ${accountLabel(e.account)}${e.phase === 'cleanup' ? ', cleanup' : ''}`,
      request: {
        method: e.method,
        url: url.href,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: Object.entries(e.requestHeaders).map(([name, value]) => ({ name, value })),
        queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
        ...(e.requestBody !== undefined ? { postData: { mimeType: reqType, text: e.requestBody } } : {}),
        headersSize: -1,
        bodySize: e.requestBody?.length ?? 0,
      },
      response: {
        status: e.status,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: Object.entries(e.responseHeaders).map(([name, value]) => ({ name, value })),
        content: { size: e.responseBody.length, mimeType: e.responseHeaders['content-type'] ?? '', text: e.responseBody },
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
      },
      cache: {},
      timings: { send: 0, wait: e.durationMs, receive: 0 },
    }
  })
  return `${redact(JSON.stringify({ log: { version: '1.2', creator, entries } }, null, 1))}\n`
}

/** What the target says it is: the most frequent `Server` (or else `X-Powered-By`) header of its answers. */
export function productOf(log: readonly LoggedExchange[]): string | undefined {
  for (const name of ['server', 'x-powered-by']) {
    const seen = new Map<string, number>()
    for (const e of log) {
      const v = e.responseHeaders[name]
      if (v) seen.set(v, (seen.get(v) ?? 0) + 1)
    }
    const top = [...seen].sort((a, b) => b[1] - a[1])[0]
    if (top) return redact(`${top[0]}${name === 'x-powered-by' ? ' (X-Powered-By)' : ''}`)
  }
  return undefined
}
