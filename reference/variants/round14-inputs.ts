/** Blind round 14 (docs/detection.md), inputs (input classes × fields): correct servers that choose differently where the spec leaves the choice open. */
import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import { addRouteHook } from '../faults/kit'
import type { Variant } from './types'

/** The `username` a sign-in sent: from the body when it has one (the body wins, as the route reads it), else the query. */
function signInUserName(request: FastifyRequest): string | undefined {
  const body = request.body
  const fromBody = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).username : undefined
  const value = fromBody ?? (request.query as Record<string, unknown>).username
  return typeof value === 'string' ? value : undefined
}

/** User names are matched exactly at sign-in: "ALICE.CT" is not the account "alice.ct". */
const signInExactCase: Variant = {
  name: 'r14av-signin-username-exact-case',
  area: 'signin',
  description: 'sign-in matches the username exactly, letter case included: the account name typed in another case is refused (401) like an unknown name',
  reading:
    '§4.1 sign-in lists `username` among its parameters and §2.1 gives userName as a string; whether user names are compared ignoring case is not stated anywhere, so a server may require the exact spelling',
  install(app, ctx) {
    addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
      const typed = signInUserName(request)
      if (typed === undefined) return
      const user = ctx.store.findUserByName(ctx.application.clientId, typed)
      if (user && user.userName !== typed) throw fail('INVALID_CREDENTIALS')
    })
  },
}

/** The fetch page when no size is given, and the largest page fetch serves. */
const FETCH_DEFAULT_SIZE = 10
const FETCH_MAX_SIZE = 100

/** Fetch pages by 10 when size is absent and serves at most 100 items a page. */
const fetchSmallPages: Variant = {
  name: 'r14av-items-fetch-small-pages',
  area: 'items',
  description: `fetch by date range answers ${FETCH_DEFAULT_SIZE} items when size is absent and at most ${FETCH_MAX_SIZE} whatever size asks; totalCount still counts every item in range`,
  reading:
    '§4.2 fetch: "Defaults and requiredness of since, until, sort_order, offset and size: not shown"; §8: "Rate limits and maximum page size: not shown". size still caps the page and offset still skips',
  install(app) {
    addRouteHook(app, 'items.fetch', 'preValidation', async (request: FastifyRequest) => {
      const query = request.query as Record<string, unknown>
      if (query.size === undefined) query.size = String(FETCH_DEFAULT_SIZE)
      else if (typeof query.size === 'string' && /^\d+$/.test(query.size) && Number(query.size) > FETCH_MAX_SIZE) query.size = String(FETCH_MAX_SIZE)
    })
  },
}

export const ROUND14_INPUT_VARIANTS: Variant[] = [signInExactCase, fetchSmallPages]
