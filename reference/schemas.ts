import Ajv, { type AnySchema, type ValidateFunction } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'

/**
 * Route validation. Bodies are JSON and are checked as sent: no type coercion, so `"maxItems": "5"` is
 * a 400, not a 5. Query strings are text by nature, so there `"5"` becomes 5, `"true"` becomes true
 * (nothing else is a boolean), a repeated key becomes an array only where the schema wants one, and
 * defaults fill absent parameters. Unknown properties and parameters are ignored.
 */
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: false, allErrors: false })
const textAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false })

export const validatorCompiler: FastifySchemaCompiler<AnySchema> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema) as ValidateFunction

export const INT32_MAX = 2_147_483_647
/** Largest offset/skip accepted: beyond anything this server stores; larger values are refused, not clamped. */
export const MAX_OFFSET = INT32_MAX
export const MAX_PAGE_SIZE = 1000

export const CHANNEL_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,50}$'
export const CHANNEL_NAME_RE = new RegExp(CHANNEL_NAME_PATTERN)
/** The reference's own choice of channel names, as ServerContext.channelNames holds it. */
export const CHANNEL_NAMES = { pattern: CHANNEL_NAME_RE, rule: 'channel names are 1-50 letters, digits, "_", "." or "-"' }

export const tagSchema = { type: 'string', minLength: 1, maxLength: 50 } as const
export const objectSchema = { type: 'object' } as const

export const offsetQuery = { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 } as const
/** Page size: 0 (count only) to MAX_PAGE_SIZE. */
export const sizeQuery = (fallback: number) => ({ type: 'integer', minimum: 0, maximum: MAX_PAGE_SIZE, default: fallback }) as const

/** `?personal=true|false` (default false), for operations that address by ownership. */
export const personalQuerySchema = {
  type: 'object',
  properties: { personal: { type: 'boolean', default: false } },
} as const

/** `?id=…&id=…`, at least one. */
export const idListQuerySchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'array', minItems: 1, maxItems: MAX_PAGE_SIZE, items: { type: 'string' } } },
} as const

export interface PersonalQuery {
  personal: boolean
}

export interface IdListQuery {
  id: string[]
}
