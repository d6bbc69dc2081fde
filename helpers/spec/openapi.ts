/**
 * The OpenAPI 3.1 description of the service, built from the endpoint table (endpoints.ts) and the JSON
 * Schemas under schemas/, the ones the checks validate with. `npm run openapi` writes it to openapi.json;
 * a self-test fails when the committed file differs from what this builds.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { clause } from './clauses'
import { DEFAULT_BASE_PATHS, ENDPOINTS, type Base, type Endpoint, type Param } from './endpoints'
import { SCHEMA_BASE_ID, SCHEMA_DIR, schemaNames } from './schemas'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

/** The component name of a schema file: `common/timestamp` → `common.timestamp` (OpenAPI allows no `/`). */
export const componentName = (schema: string): string => schema.split('/').join('.')

const TAGS: readonly { name: string; description: string }[] = [
  { name: 'users', description: 'User service (§4.1): sign-in and user discovery.' },
  { name: 'channels', description: 'Channels (§4.2): create, search, fetch, summarize and delete.' },
  { name: 'subscriptions', description: 'Subscriptions of a channel (§4.2).' },
  { name: 'tags', description: 'Tags of a channel (§4.2).' },
  { name: 'items', description: 'Published items of a channel (§4.2).' },
  { name: 'messages', description: 'Direct messages and their delivery status (§4.3).' },
  { name: 'push', description: "Push to a user's devices (§4.4)." },
]

/** The tag of an endpoint, from its service and path. */
function tagOf(e: Endpoint): string {
  if (e.base === 'user') return 'users'
  const [first, , sub] = e.path.split('/').slice(1)
  if (first !== 'channels') return first === 'messages' ? 'messages' : 'push'
  if (sub === 'subscribe' || sub === 'unsubscribe' || sub === 'subscriptions') return 'subscriptions'
  return sub === 'tags' || sub === 'items' ? sub : 'channels'
}

const SERVER_VARIABLE: Record<Base, string> = { user: 'userApiPath', message: 'messageApiPath' }

function server(base: Base): JsonObject {
  const variable = SERVER_VARIABLE[base]
  return {
    url: `{origin}{${variable}}`,
    description: base === 'user' ? 'The user service (USER_API_PATH of the suite).' : 'The messaging service (MESSAGE_API_PATH of the suite).',
    variables: {
      origin: { default: 'http://127.0.0.1:8080', description: 'Scheme, host, port and any base path of the deployment (BASE_URL of the suite).' },
      [variable]: { default: DEFAULT_BASE_PATHS[base], description: 'Prefix of the service; deployments may move it.' },
    },
  }
}

/** A schema file as an OpenAPI component: no $schema/$id, references to components, extension keywords as x-. */
function component(name: string): Json {
  const file = JSON.parse(readFileSync(join(SCHEMA_DIR, `${name}.json`), 'utf8')) as JsonObject
  const id = String(file.$id)
  const convert = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(convert)
    if (node === null || typeof node !== 'object') return node
    const out: JsonObject = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === '$schema' || key === '$id') continue
      if (key === '$ref' && typeof value === 'string') {
        const target = new URL(value, id).href
        if (!target.startsWith(SCHEMA_BASE_ID)) throw new Error(`schemas/${name}.json: $ref ${value} leaves schemas/`)
        out.$ref = `#/components/schemas/${componentName(target.slice(SCHEMA_BASE_ID.length).replace(/\.json$/, ''))}`
      } else if (key === 'preferredForm') {
        // The suite's own keyword (a SHOULD-level form): kept, as an extension other tools ignore.
        out['x-preferredForm'] = value
      } else {
        out[key] = convert(value)
      }
    }
    return out
  }
  return convert(file)
}

function parameter(p: Param): JsonObject {
  const out: JsonObject = { name: p.name, in: p.in, required: p.required, description: p.description, schema: p.schema as Json }
  // Repeated query parameters travel as `id=a&id=b` (form style, exploded: OpenAPI's default, stated for clarity).
  if (p.in === 'query' && p.schema.type === 'array') Object.assign(out, { style: 'form', explode: true })
  return out
}

const NOT_SHOWN =
  'Any other answer. Error responses are not shown by the spec (§7): no error codes, no error body shape, no failure status codes. The suite judges a refusal as "not 2xx".'

function operation(e: Endpoint): JsonObject {
  const op: JsonObject = {
    operationId: e.operationId,
    summary: e.summary,
    description: `${e.description} (${e.section})`,
    tags: [tagOf(e)],
  }
  if (!e.bearer) op.security = []
  if (e.params.length) op.parameters = e.params.map(parameter)
  if (e.body) {
    const content: JsonObject = {}
    for (const [media, schema] of Object.entries(e.body.content)) content[media] = { schema: schema as Json }
    op.requestBody = { required: e.body.required, content }
  }
  const ok: JsonObject = { description: e.success.description }
  if (e.success.schema) ok.content = { 'application/json': { schema: { $ref: `#/components/schemas/${componentName(e.success.schema)}` } } }
  const responses: JsonObject = { [e.success.status]: ok }
  if (e.bearer) responses['401'] = { $ref: '#/components/responses/NoValidToken' }
  responses.default = { description: NOT_SHOWN }
  op.responses = responses
  op['x-clauses'] = e.clauses.map((id) => clause(id).id)
  return op
}

/**
 * The description. `flat`: one server (the origin) and every path written out with its service's prefix,
 * for tools that ignore path-level servers; `bases` then sets those prefixes.
 */
export function buildOpenApi(opts: { flat?: boolean; bases?: Readonly<Record<Base, string>> } = {}): JsonObject {
  const bases = opts.bases ?? DEFAULT_BASE_PATHS
  const paths: JsonObject = {}
  for (const e of ENDPOINTS) {
    const key = opts.flat ? `${bases[e.base].replace(/\/+$/, '')}${e.path}` : e.path
    const item = (paths[key] ??= {}) as JsonObject
    // The messaging service is the document's server; user-service paths name their own.
    if (!opts.flat && e.base === 'user') item.servers = [server('user')]
    item[e.method.toLowerCase()] = operation(e)
  }
  const schemas: JsonObject = {}
  for (const name of schemaNames()) schemas[componentName(name)] = component(name)
  return {
    openapi: '3.1.0',
    info: {
      title: 'Messaging and Channel REST Service',
      version: 'v2',
      summary: 'Sign-in and user discovery, channels, direct messages and push, as the conformance suite reads the spec.',
      description: [
        "Written by `npm run openapi` from the conformance suite's endpoint table (helpers/spec/endpoints.ts) and the JSON Schemas its checks validate with (schemas/); do not edit by hand.",
        "Each operation lists in `x-clauses` the clause ids of helpers/spec/clauses.ts judged on it; docs/clauses.md gives each clause's words, level, checks and the faults that prove them.",
        'Response schemas forbid undocumented properties (`additionalProperties: false`); the suite reports those as SHOULD warnings, not failures. `x-preferredForm` marks a SHOULD-level timestamp form.',
        'Where the spec states no success status, the response is `2XX`; error responses are not shown by the spec, so none is described beyond `default` (and 401, an HTTP convention the suite checks at SHOULD).',
      ].join('\n\n'),
    },
    servers: opts.flat
      ? [
          {
            url: '{origin}',
            variables: { origin: { default: 'http://127.0.0.1:8080', description: 'Scheme, host, port and any base path (BASE_URL of the suite).' } },
          },
        ]
      : [server('message')],
    security: [{ bearerAuth: [] }],
    tags: TAGS.map(({ name, description }) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The access_token of the sign-in response (POST /user/session), sent as `Authorization: Bearer <ACCESS_TOKEN>` on every call but sign-in (§4, §5).',
        },
      },
      responses: {
        NoValidToken: {
          description:
            'No valid bearer token. The spec shows no failure status; 401 is the HTTP convention the suite expects at SHOULD (auth.token-required.401).',
        },
      },
      schemas,
    },
  }
}

/** The file's text: two-space JSON and a final newline, so a regenerated file diffs cleanly. */
export function openApiText(opts: Parameters<typeof buildOpenApi>[0] = {}): string {
  return `${JSON.stringify(buildOpenApi(opts), null, 2)}\n`
}
