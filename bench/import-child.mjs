/**
 * Bench child: imports a directory into a data dir as `carrier-verify import --dir` does (every
 * gate, the bundled sample refused, each file hashed) and prints stats + peak RSS as JSON.
 * Plain JavaScript over the compiled code in dist/ (run `npm run build` first), so the import's
 * memory is that of the Docker image: under tsx every thread (the parse and build workers
 * inherit the loader) also holds the transpiler and the sources' maps.
 */
import { loadConfig } from '../dist/config.js'
import { createDeps } from '../dist/compose.js'
import { pipelineDeps } from '../dist/deps.js'
import { silentLogger } from '../dist/log.js'
import { importMirror } from '../dist/sync/import.js'

const [dataDir, inDir, only] = process.argv.slice(2)
if (!dataDir || !inDir) throw new Error('usage: import-child DATA_DIR IN_DIR [dataset,dataset]')
const deps = createDeps(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
  log: silentLogger(),
})
let peakRss = 0
// peak RSS per 10 s of the import, to see which phase holds the memory
const rssTimeline = []
const started = performance.now()
const sampler = setInterval(() => {
  const rss = process.memoryUsage.rss()
  peakRss = Math.max(peakRss, rss)
  const slot = Math.floor((performance.now() - started) / 10_000)
  rssTimeline[slot] = Math.max(rssTimeline[slot] ?? 0, Math.round(rss / 1048576))
}, 100)
const { results, refused } = await importMirror(pipelineDeps(deps), inDir, {
  trigger: 'cli',
  signal: AbortSignal.timeout(3_600_000),
  only: only ? only.split(',') : undefined,
  // generated files carry no .meta sidecar: their data date is today's
  asOf: new Date().toISOString().slice(0, 10),
  sampleDir: deps.config.paths.sample,
  // the small scales hold fewer out-of-service orders than the floor; the guard is one count
  oosMinRows: 0,
})
if (refused.length) throw new Error(`refused: ${JSON.stringify(refused)}`)
clearInterval(sampler)
const seconds = (performance.now() - started) / 1000
deps.close()
const usage = process.resourceUsage()
process.stdout.write(
  `${JSON.stringify({
    seconds,
    // CPU seconds of the whole process, every thread (the parse, search and SQLite helper threads)
    cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    maxRssMb: Math.round(Math.max(peakRss, usage.maxRSS * 1024) / 1048576),
    rssTimelineMb: [...rssTimeline].map((v) => v ?? 0),
    // seconds per build phase of a one-dataset import (run.ts prints them); every dataset's are
    // in its result
    phases:
      results.length === 1 && results[0]?.status === 'activated'
        ? results[0].stats.phases
        : undefined,
    results: results.map((r) =>
      r.status === 'activated'
        ? {
            dataset: r.dataset,
            rows: r.stats.rows,
            rejects: r.stats.rejects,
            // seconds per build phase (parse worker busy time, inserts, indexes, FTS, checks)
            phases: r.stats.phases,
          }
        : r,
    ),
  })}\n`,
)
