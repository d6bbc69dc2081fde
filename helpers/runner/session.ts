/**
 * Many whole-suite runs in one process, for the self-proof: a session keeps a few vitest instances ("lanes")
 * open and runs the suite on one after another, each time against the target of one prepared run. What a
 * fresh `npm run conformance` pays on every start (node and the TypeScript loader, vitest's own start, Vite
 * transforming every suite and helper file, the main process's imports) is paid once per lane; a run pays
 * only for its workers and its checks. The schemas are compiled once in the session's process, and every run's
 * workers take their validators from that code.
 *
 * Each run is still a whole run of its own: runConformance() prepares it (its own reference server, sign-in,
 * ledger, report directory), hands its context to the lane's workers through provide/inject as the global
 * set-up does for a standalone run, collects its checks with its own reporter and writes its own results.json.
 * The worker-side state (fixtures, token sessions, pace, recorder, module state) is per run because vitest
 * ends a run's workers once its last file is done (its pool keeps a worker only for a file still queued), so
 * the next run's workers start fresh and only the transformed code stays cached in the lane.
 *
 * A session runs the whole suite (or the `suiteFiles` it was opened with): it takes no area or level filter.
 */
import { createVitest, type Reporter, type TestSpecification, type Vitest } from 'vitest/node'
import { packageRoot } from '../config/package-root'
import { compiledSchemaCode } from '../spec/schemas'
import { suiteTestConfig } from './suite-config'
import type { RunContext } from '../http/run-context'

export interface SessionOptions {
  /** vitest instances kept open; as many runs go side by side (default 1). */
  lanes?: number
  /** Test files to run instead of `suites/` (globs from the project root). */
  suiteFiles?: string[]
  /** Worker threads of each lane's runs (default: the suite's own setting, vitest.config.ts). */
  maxWorkers?: number
}

/** The hooks a reporter may have; a lane forwards each to the reporters of the run it is doing. */
const HOOKS = [
  'onTestRunStart',
  'onTestRunEnd',
  'onTestModuleQueued',
  'onTestModuleCollected',
  'onTestModuleStart',
  'onTestModuleEnd',
  'onHookStart',
  'onHookEnd',
  'onTestSuiteReady',
  'onTestSuiteResult',
  'onTestCaseReady',
  'onTestCaseResult',
  'onTestCaseAnnotate',
  'onTestCaseArtifactRecord',
  'onUserConsoleLog',
  'onProcessTimeout',
] as const

class Lane {
  /** The reporters of the run in progress. */
  private current: Reporter[] = []
  private constructor(
    private readonly vitest: Vitest,
    private readonly specs: TestSpecification[],
  ) {}

  static async open(options: SessionOptions): Promise<Lane> {
    const root = packageRoot()
    const forward: Record<string, unknown> = {}
    let lane: Lane | undefined
    for (const hook of HOOKS)
      forward[hook] = async (...args: unknown[]) => {
        for (const r of lane?.current ?? []) await (r[hook] as ((...a: unknown[]) => unknown) | undefined)?.call(r, ...args)
      }
    const vitest = await createVitest('test', {
      ...suiteTestConfig(null, root),
      config: false,
      root,
      watch: false,
      reporters: [forward as Reporter],
      // The session hands each run its context itself (run() below); the global set-up would give the first only.
      globalSetup: [],
      // No Allure results are written from a session (its runs' reports are off), so no Allure runtime in its workers.
      setupFiles: [],
      passWithNoTests: true,
      ...(options.suiteFiles ? { include: options.suiteFiles } : {}),
      ...(options.maxWorkers ? { maxWorkers: options.maxWorkers } : {}),
    })
    // Every run's workers take their schema validators from this code, compiled once in this process.
    vitest.getRootProject().provide('schemaCode', compiledSchemaCode())
    lane = new Lane(vitest, await vitest.globTestSpecifications())
    return lane
  }

  async run(context: RunContext, reporters: Reporter[]): Promise<void> {
    this.current = reporters
    try {
      for (const r of reporters) await r.onInit?.(this.vitest)
      this.vitest.getRootProject().provide('run', context)
      await this.vitest.runTestSpecifications(this.specs, true)
    } finally {
      this.current = []
    }
  }

  close(): Promise<void> {
    return this.vitest.close()
  }
}

/** A few lanes; run() takes a free one (waiting for one when all are busy). */
export class SuiteSession {
  private readonly free: Lane[] = []
  private readonly waiting: ((lane: Lane) => void)[] = []
  private closed = false

  private constructor(private readonly lanes: Lane[]) {
    this.free.push(...lanes)
  }

  static async open(options: SessionOptions = {}): Promise<SuiteSession> {
    const count = Math.max(1, Math.floor(options.lanes ?? 1))
    // One after another: each lane's start is CPU-bound, and side by side they only contend.
    const lanes: Lane[] = []
    try {
      for (let i = 0; i < count; i++) lanes.push(await Lane.open(options))
    } catch (err) {
      await Promise.allSettled(lanes.map((l) => l.close()))
      throw err
    }
    return new SuiteSession(lanes)
  }

  get width(): number {
    return this.lanes.length
  }

  /** Runs the suite once against `context`, reporting to `reporters` only. */
  async run(context: RunContext, reporters: Reporter[]): Promise<void> {
    if (this.closed) throw new Error('the suite session is closed')
    const lane = this.free.shift() ?? (await new Promise<Lane>((take) => this.waiting.push(take)))
    try {
      await lane.run(context, reporters)
    } finally {
      const next = this.waiting.shift()
      if (next) next(lane)
      else this.free.push(lane)
    }
  }

  async close(): Promise<void> {
    this.closed = true
    await Promise.allSettled(this.lanes.map((l) => l.close()))
  }
}
