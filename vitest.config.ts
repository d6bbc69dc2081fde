/**
 * The conformance suite (suites/), for a bare `npx vitest --config vitest.config.ts`; `npm run conformance`
 * hands vitest the same options itself (helpers/runner/suite-config.ts). Checks are independent (each makes its
 * own channels), so files run in parallel and tests within a file run concurrently.
 */
import { defineConfig } from 'vitest/config'
import { suiteTestConfig } from './helpers/runner/suite-config.ts'

export default defineConfig({ test: suiteTestConfig() })
