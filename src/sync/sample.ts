import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { filesInDir, importDir } from './pipeline.ts'
import type { RunDeps, RunResult } from './run.ts'
import { activeVersion } from '../db/versions.ts'

/** A fingerprint of the bundled sample files (they are small): a new release's sample rebuilds. */
export function sampleFingerprint(dir: string): string | null {
  const files = [...filesInDir(dir).entries()].sort(([a], [b]) => a.localeCompare(b))
  if (files.length === 0) return null
  const h = createHash('sha256')
  for (const [id, path] of files) h.update(id).update(readFileSync(path))
  return h.digest('hex')
}

/**
 * Makes sure the bundled sample dataset is built and active (first start, or a newer sample
 * shipped with an upgrade). Sandbox keys read it; live keys read it until the mirror has a census.
 */
export async function ensureSample(
  deps: RunDeps,
  dir: string,
  signal: AbortSignal,
): Promise<RunResult[] | 'current' | 'absent'> {
  const fingerprint = sampleFingerprint(dir)
  if (!fingerprint) return 'absent'
  const current = activeVersion(deps.db, 'census', 'sample')
  const stored = current?.files
    ? (JSON.parse(current.files) as { fingerprint?: string }).fingerprint
    : undefined
  if (current && stored === fingerprint) return 'current'
  deps.log.info({ dir }, 'building the bundled sample dataset')
  return importDir(deps, dir, { channel: 'sample', trigger: 'startup', signal, fingerprint })
}
