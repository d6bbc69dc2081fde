/**
 * Loaded by `npm run bench` into each process it measures (NODE_OPTIONS=--import …): when the process ends,
 * its CPU time (user + system, every thread of it) goes to the file BENCH_CPU_FILE names, as milliseconds.
 */
import { writeFileSync } from 'node:fs'
import { isMainThread } from 'node:worker_threads'

const file = process.env.BENCH_CPU_FILE
if (file && isMainThread) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage()
    writeFileSync(file, String(Math.round((user + system) / 1000)))
  })
}
