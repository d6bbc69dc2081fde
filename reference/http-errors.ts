import type { Socket } from 'node:net'
import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, ERRORS, type ErrorBody, type ErrorEntry } from './errors'

/**
 * Every refusal, whoever makes it (a handler, the validator, a body parser, the router, Node's HTTP
 * parser), leaves as `{ code, message }`. Messages never echo request bodies or credentials.
 */

/** Fastify's own errors, by code, in terms of the catalogue. */
const FRAMEWORK: Record<string, ErrorEntry> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ERRORS.BODY_TOO_LARGE,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ERRORS.UNSUPPORTED_MEDIA_TYPE,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ERRORS.MALFORMED_BODY,
  FST_ERR_CTP_EMPTY_JSON_BODY: ERRORS.MALFORMED_BODY,
  FST_ERR_CTP_INVALID_JSON_BODY: ERRORS.MALFORMED_BODY, // its own text quotes the body: not passed on
  FST_ERR_BAD_URL: ERRORS.MALFORMED_REQUEST,
  FST_ERR_MAX_PARAM_LENGTH: ERRORS.MALFORMED_REQUEST,
}

export function toErrorResponse(error: FastifyError | ApiError | Error): { status: number; body: ErrorBody } {
  if (error instanceof ApiError) return { status: error.status, body: { code: error.code, message: error.message } }
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    return { status: 400, body: { code: ERRORS.BAD_REQUEST.code, message: fastifyError.message } }
  }
  const known = fastifyError.code ? FRAMEWORK[fastifyError.code] : undefined
  if (known) return { status: known.status, body: { code: known.code, message: known.message } }
  // Other client errors of the body parsers (e.g. a `__proto__` key): their texts are not passed on either.
  const status = fastifyError.statusCode
  if (status === 400) return { status, body: { code: ERRORS.MALFORMED_BODY.code, message: ERRORS.MALFORMED_BODY.message } }
  if (status !== undefined && status > 400 && status < 500) {
    return { status, body: { code: ERRORS.BAD_REQUEST.code, message: STATUS_CODES[status] ?? 'bad request' } }
  }
  return { status: 500, body: { code: ERRORS.INTERNAL.code, message: ERRORS.INTERNAL.message } }
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = toErrorResponse(error)
  if (status >= 500) request.log.error({ err: error, route: request.routeOptions.config.id }, 'request failed')
  void reply.code(status).send(body)
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0]
  void reply.code(404).send({ code: ERRORS.ROUTE_NOT_FOUND.code, message: `no route ${request.method} ${path}` })
}

/** For requests Node's HTTP parser rejects: answered on the raw socket, then closed. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const entry =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ERRORS.REQUEST_TIMEOUT
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ERRORS.HEADERS_TOO_LARGE
        : ERRORS.MALFORMED_REQUEST
  const body = JSON.stringify({ code: entry.code, message: entry.message })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${entry.status} ${STATUS_CODES[entry.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(error)
}
