/**
 * The Allure results of a run, written by allure-vitest's own reporter with one change: its files are not forced
 * to disk one by one. allure-js-commons' writer calls fsync on every result file, in the main process, while the
 * run goes on: about half a second of a whole run against the embedded server spent blocking the thread that also
 * serves it, for files the run finishes and rewrites itself at its end (helpers/reports/allure.ts). Each file is
 * still written whole under a temporary name and then renamed, so a reader never sees half of one.
 */
import { randomUUID } from 'node:crypto'
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Vitest } from 'vitest/node'
import { stringifyEnvInfo, type Writer } from 'allure-js-commons/sdk/reporter'
import AllureVitestReporter from 'allure-vitest/reporter'

/** allure-js-commons' file names and formats, without the fsync. */
export class UnsyncedAllureWriter implements Writer {
  /** The folder is made once, with the writer (the run has just emptied it), not before every file. */
  constructor(private readonly resultsDir: string) {
    mkdirSync(resultsDir, { recursive: true })
  }

  writeResult(result: Parameters<Writer['writeResult']>[0]): void {
    this.publish(`${result.uuid}-result.json`, JSON.stringify(result))
  }

  writeGroup(result: Parameters<Writer['writeGroup']>[0]): void {
    this.publish(`${result.uuid}-container.json`, JSON.stringify(result))
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    this.publish(distFileName, content)
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    this.publish(distFileName, null, from)
  }

  writeEnvironmentInfo(info: Parameters<Writer['writeEnvironmentInfo']>[0]): void {
    this.publish('environment.properties', stringifyEnvInfo(info))
  }

  writeCategoriesDefinitions(categories: Parameters<Writer['writeCategoriesDefinitions']>[0]): void {
    this.publish('categories.json', JSON.stringify(categories))
  }

  writeGlobals(distFileName: string, info: Parameters<Writer['writeGlobals']>[1]): void {
    this.publish(distFileName, JSON.stringify(info))
  }

  /** Written whole under a temporary name in the same folder, then renamed into place. */
  private publish(name: string, data: string | Buffer | null, copyFrom?: string): void {
    const temp = join(this.resultsDir, `.allure-write-${randomUUID()}.tmp`)
    try {
      if (copyFrom !== undefined) copyFileSync(copyFrom, temp)
      else writeFileSync(temp, data!)
      renameSync(temp, join(this.resultsDir, name))
    } catch (err) {
      rmSync(temp, { force: true })
      throw err
    }
  }
}

type AllureConfig = ConstructorParameters<typeof AllureVitestReporter>[0]

/** allure-vitest's reporter, its results written by UnsyncedAllureWriter. */
export class AllureResultsReporter extends AllureVitestReporter {
  constructor(private readonly options: AllureConfig & { resultsDir: string }) {
    super(options)
  }

  override onInit(vitest: Vitest): void {
    super.onInit(vitest)
    // The runtime allure-vitest made for this run; only its writer is swapped (it has written two small files).
    const runtime = (this as unknown as { allureReporterRuntime?: { writer: Writer } }).allureReporterRuntime
    if (runtime) runtime.writer = new UnsyncedAllureWriter(this.options.resultsDir)
  }
}
