/**
 * The embedded default target: the bundled reference server on 127.0.0.1, a free port, seeded with the
 * run's own configuration (application and accounts A, B, C), so the suite and the server always agree.
 */
import { buildServer } from '../../reference/app'
import { resolveFaults } from '../../reference/faults'
import { loadSeed } from '../../reference/seed'
import { ACCOUNT_KEYS, type AccountCredentials, type Config } from '../config/config'

export interface EmbeddedServer {
  url: string
  /** A variant is on (named, or one a fault is built on): reads may lag behind writes as the variant chooses. */
  variantsOn: boolean
  close(): Promise<void>
}

export async function startEmbeddedServer(config: Config, faults: string[], variants: string[] = []): Promise<EmbeddedServer> {
  const seed = loadSeed()
  seed.application.clientId = config.clientId
  if (config.clientSecret) seed.application.clientSecret = config.clientSecret
  ACCOUNT_KEYS.forEach((key, i) => {
    const cred: AccountCredentials | undefined = config.accounts[key]
    const user = seed.users[i]
    if (cred && user) {
      user.userName = cred.userName
      user.password = cred.password
    }
  })
  const app = await buildServer({ seed, faults, variants, userApiPath: config.userApiPath, messageApiPath: config.messageApiPath })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('the embedded reference server has no TCP address')
  const variantsOn = variants.length > 0 || resolveFaults(faults).some((f) => (f.builtOn ?? []).length > 0)
  return { url: `http://127.0.0.1:${address.port}`, variantsOn, close: () => app.close() }
}
