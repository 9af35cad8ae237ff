import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DATASETS } from './datasets.ts'
import { filesInDir, inputsFor, runBuild } from './pipeline.ts'
import type { RunDeps, RunResult } from './run.ts'
import { servableVersion } from '../db/versions.ts'

/** A fingerprint of a set of sample files (they are small): a new release's sample rebuilds. */
export function sampleFingerprint(files: ReadonlyMap<string, string>): string | null {
  const sorted = [...files.entries()].sort(([a], [b]) => a.localeCompare(b))
  if (sorted.length === 0) return null
  const h = createHash('sha256')
  for (const [id, path] of sorted) h.update(id).update(readFileSync(path))
  return h.digest('hex')
}

/**
 * The date the sample's data describes (its `AS_OF` file, YYYY-MM-DD): the sample is dated by
 * its snapshot, never by the day it was first built. Null when the folder has none.
 */
export function sampleAsOf(dir: string): string | null {
  const file = join(dir, 'AS_OF')
  if (!existsSync(file)) return null
  const text = readFileSync(file, 'utf8').trim()
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : null
}

/** How long a start waits for a sample dataset another process is building. */
const SAMPLE_LEASE_WAIT_MS = 5 * 60_000

/**
 * Makes sure every bundled sample dataset is built and active (first start, a start after a crash
 * during the sample build, or a newer sample shipped with an upgrade). Each dataset is judged on
 * its own by the fingerprint of its own files, so a missing or outdated one is rebuilt alone.
 * Sandbox keys read the sample; live keys read it until the mirror has a census.
 */
export async function ensureSample(
  deps: RunDeps,
  dir: string,
  signal: AbortSignal,
): Promise<RunResult[] | 'current' | 'absent'> {
  const available = filesInDir(dir)
  if (available.size === 0) return 'absent'
  const results: RunResult[] = []
  const asOf = sampleAsOf(dir)
  for (const spec of DATASETS) {
    if (signal.aborted) break
    const inputs = inputsFor(spec, available)
    const files = sampleFingerprint(inputs)
    if (!files) continue
    // the date is part of the fingerprint: a sample built with the day of its build is rebuilt
    const fingerprint = asOf ? `${files}@${asOf}` : files
    // a row whose file is missing (a restored app.db) is rebuilt like a missing one
    const current = servableVersion(deps.db, deps.paths.dataDir, spec.name, 'sample')
    const stored = current?.files
      ? (JSON.parse(current.files) as { fingerprint?: string }).fingerprint
      : undefined
    if (current && stored === fingerprint) continue
    deps.log.info(
      { dataset: spec.name, dir, reason: current ? 'changed' : 'missing' },
      'building the bundled sample dataset',
    )
    results.push(
      await runBuild(deps, spec, inputs, {
        channel: 'sample',
        trigger: 'startup',
        signal,
        fingerprint,
        waitMs: SAMPLE_LEASE_WAIT_MS,
        ...(asOf ? { asOf } : {}),
      }),
    )
  }
  return results.length ? results : 'current'
}
