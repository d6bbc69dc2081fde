/**
 * Every environment variable the project reads, as one table: the loader (config.ts) takes its defaults
 * from here, the CLI its flags and help, and the configuration table of docs/configuration.md is generated from it
 * (`npm run docs:config`). selftest/config-table.test.ts holds the table against `.env.example` and the README.
 */

export type VarType = 'url' | 'path' | 'string' | 'integer' | 'number' | 'boolean' | 'file'

export interface ConfigVar {
  name: string
  type: VarType
  /** The value when the variable is absent or empty ('' : none). Never a secret. */
  default: string
  /** How docs/configuration.md shows the default when it is not a plain value. */
  shownDefault?: string
  description: string
  /** Never printed, logged or shown; its CLI flag is best avoided (a command line is visible to other users). */
  secret: boolean
  /** The CLI flag that sets it (`--base-url`). */
  flag: string
  /**
   * Where it belongs: `env` in `.env.example` and env files; `ci` set by a CI service, never in a file;
   * `explore` read by the explorer from the process environment; `serve` read by the reference server alone;
   * `reports` read by a report command (`npm run report:allure`) from the process environment.
   */
  scope: 'env' | 'ci' | 'explore' | 'serve' | 'reports'
}

const v = (name: string, type: VarType, dflt: string, description: string, extra: Partial<ConfigVar> = {}): ConfigVar => ({
  name,
  type,
  default: dflt,
  description,
  secret: false,
  flag: `--${name.toLowerCase().replace(/_/g, '-')}`,
  scope: 'env',
  ...extra,
})

const secret = { secret: true }
const reference = { shownDefault: 'reference value' }

export const CONFIG_TABLE: readonly ConfigVar[] = [
  v(
    'BASE_URL',
    'url',
    '',
    'the target; empty starts the bundled reference server for the run, except in CI (`CI` set and not `false`/`0`), where an empty `BASE_URL` is refused (exit 2); `embedded` asks for the bundled server explicitly, anywhere',
  ),
  v('USER_API_PATH', 'path', '/mobile/api/com.vendor.server', 'prefix of the user service'),
  v('MESSAGE_API_PATH', 'path', '/message/api/v2', 'prefix of the messaging service'),
  v('CLIENT_ID', 'string', '', "the application's OAuth client id", reference),
  v('CLIENT_SECRET', 'string', '', "the application's client secret; only used to enrol disposable users", { ...secret, ...reference }),
  v(
    'USER_A_NAME',
    'string',
    '',
    'test account A, which owns channels; leave all six account variables empty to have the suite enrol disposable users where the server offers registration',
    reference,
  ),
  v('USER_A_PASSWORD', 'string', '', 'password of test account A', { ...secret, ...reference }),
  v('USER_B_NAME', 'string', '', 'test account B, another user', reference),
  v('USER_B_PASSWORD', 'string', '', 'password of test account B', { ...secret, ...reference }),
  v('USER_C_NAME', 'string', '', 'test account C, a third user (subscriber rules)', reference),
  v('USER_C_PASSWORD', 'string', '', 'password of test account C', { ...secret, ...reference }),
  v(
    'REPORT_DIR',
    'path',
    'reports',
    'where `results.json` and the other reports go (see [Reports](reports.md#reports)), relative to the working directory; proven writable with the configuration; one run at a time per directory',
  ),
  v(
    'EXPECTATIONS_FILE',
    'file',
    '',
    "the target's known-failures file; empty: `expectations/<target slug>.json` if it exists ([format](../expectations/README.md))",
  ),
  v('STRICT', 'boolean', 'false', '`true`: SHOULD failures also fail the run'),
  v('SEED', 'integer', '', 'seed of generated data; the run prints the one it used, so a failing run can be repeated', { shownDefault: 'random' }),
  v('REQUEST_TIMEOUT_MS', 'integer', '15000', 'per-request timeout in milliseconds'),
  v(
    'SWEEP_MIN_AGE_MINUTES',
    'number',
    '60',
    'the sweep deletes leftover channels of earlier runs only from this age on ([Running against staging](staging.md#running-against-staging))',
  ),
  v(
    'HTTPS_PROXY',
    'url',
    '',
    'proxy for https:// targets (`https_proxy` too); used by the preflight, the checks, the cleanup and the sweep, never for the bundled server',
  ),
  v('HTTP_PROXY', 'url', '', 'proxy for http:// targets (`http_proxy` too)'),
  v('NO_PROXY', 'string', '', 'hosts reached directly, not through a proxy (`no_proxy` too): host, .domain, host:port or `*`, comma-separated'),
  v('CA_FILE', 'file', '', "PEM file of certificate authorities to trust in addition to Node's default ones (an internal CA)"),
  v('CLIENT_CERT_FILE', 'file', '', 'PEM client certificate, for servers that demand one (set `CLIENT_KEY_FILE` too)'),
  v('CLIENT_KEY_FILE', 'file', '', 'PEM key of the client certificate'),
  v('MAX_CONCURRENCY', 'integer', '16', 'requests in flight at once, for the whole run (all workers, cleanup and sweep together); 1–256'),
  v(
    'MAX_RPS',
    'number',
    '',
    'requests started per second, for the whole run; empty or `0`: no fixed cap. Either way the run slows down when the target answers 429 ([rate limits](staging.md#running-against-staging))',
  ),
  v(
    'RERUN_ERRORED',
    'boolean',
    'true',
    'a check that ends in `error` runs again, up to twice (up to four times when a 502/503/504 was its only trouble), with fresh channels (`flaky` when it then passes); `false` or `0` turns this off',
  ),
  v('CI', 'boolean', '', 'set by CI services; when set (and not `false`/`0`) an empty `BASE_URL` is refused', { scope: 'ci' }),
  v('EXPLORE_BUDGET_S', 'number', '60', 'seconds of `npm run explore` ([Exploring](explore.md))', { scope: 'explore' }),
  v(
    'EXPLORE_POLL_MS',
    'integer',
    '5000',
    'how long explore polls a read after a write before a difference counts (150 against the embedded server without --variant)',
    {
      scope: 'explore',
    },
  ),
  v('PORT', 'integer', '8080', 'port of the reference server started alone (`npm run serve`; 0 picks a free one)', { scope: 'serve' }),
  v('HOST', 'string', '127.0.0.1', 'address the reference server started alone binds to', { scope: 'serve' }),
  v('ALLURE_CLI', 'path', '', "the `cli.js` of an Allure Report 3 installation for `npm run report:allure` (empty: the project's own `allure` package)", {
    scope: 'reports',
  }),
]

export function configVar(name: string): ConfigVar {
  const row = CONFIG_TABLE.find((r) => r.name === name)
  if (!row) throw new Error(`${name} is not a row of the configuration table (helpers/config/table.ts)`)
  return row
}

/** The default of a variable, from the table. */
export function defaultOf(name: string): string {
  return configVar(name).default
}

const BEGIN = '<!-- configuration table: generated from helpers/config/table.ts by `npm run docs:config` -->'
const END = '<!-- end of configuration table -->'

/** The configuration table of docs/configuration.md, one row per variable. */
export function configMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|')
  const rows = CONFIG_TABLE.map((r) => {
    const shown = r.shownDefault ?? (r.default === '' ? 'empty' : `\`${r.default}\``)
    return `| \`${r.name}\` | \`${r.flag}\` | ${shown} | ${cell(r.description)}${r.secret ? ' (secret: never printed)' : ''} |`
  })
  return [BEGIN, '| variable | flag | default | meaning |', '|---|---|---|---|', ...rows, END].join('\n')
}

/** `readme` with its generated section replaced by the table's current one; null when the markers are missing. */
export function withConfigMarkdown(readme: string): string | null {
  const start = readme.indexOf(BEGIN)
  const end = readme.indexOf(END)
  if (start < 0 || end < start) return null
  return readme.slice(0, start) + configMarkdown() + readme.slice(end + END.length)
}
