/**
 * A corporate forward proxy on 127.0.0.1 (port 0), for the self-tests of HTTP_PROXY / HTTPS_PROXY: it tunnels
 * CONNECT requests and forwards absolute-form requests (`GET http://host/…`), and it alone knows the names in
 * `hosts` (a staging name such as `staging.ct.invalid`, which nothing else resolves), so a run that reaches
 * such a target provably went through it. Only the names in `hosts` and loopback addresses are reached:
 * any other destination is answered 502, so no test ever leaves the machine.
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'

export interface ForwardProxy {
  url: string
  /** One line per tunnel or forwarded request: `CONNECT host:port` or `GET http://host:port/path`. */
  seen: string[]
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

export async function startForwardProxy(hosts: Record<string, string> = {}): Promise<ForwardProxy> {
  const seen: string[] = []
  const sockets = new Set<Socket>()
  const resolveHost = (name: string): string | null => {
    const host = name.toLowerCase()
    if (host in hosts) return hosts[host]!
    return LOOPBACK.has(host) ? host.replace(/^\[|\]$/g, '') : null
  }

  const server: Server = createServer((req, res) => {
    // Absolute-form: the proxy makes the request itself.
    let target: URL
    try {
      target = new URL(req.url ?? '')
    } catch {
      res.writeHead(400).end('absolute-form request expected')
      return
    }
    const address = resolveHost(target.hostname)
    seen.push(`${req.method} ${target.href}`)
    if (!address || target.protocol !== 'http:') {
      res.writeHead(502).end('unknown host')
      return
    }
    const upstream = httpRequest(
      { host: address, port: Number(target.port) || 80, method: req.method, path: `${target.pathname}${target.search}`, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      },
    )
    upstream.on('error', () => res.writeHead(502).end('upstream error'))
    req.pipe(upstream)
  })

  server.on('connect', (req, client: Socket, head: Buffer) => {
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    client.on('error', () => client.destroy())
    const m = /^([^:]+|\[[^\]]+\]):(\d+)$/.exec(req.url ?? '')
    seen.push(`CONNECT ${req.url}`)
    const address = m ? resolveHost(m[1]!) : null
    if (!m || !address) {
      client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n')
      return
    }
    const upstream = connect(Number(m[2]), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    sockets.add(upstream)
    upstream.on('close', () => {
      sockets.delete(upstream)
      client.destroy()
    })
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'))
  })

  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy()
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
    },
  }
}
