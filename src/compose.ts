/**
 * The dependency bag with its ports: app.db, the dataset registry and the rest (deps.ts), records
 * assembled in process. The server replaces the record port with its worker pool (serve.ts).
 */
import type { Config } from './config.ts'
import { inProcessRecords } from './carriers/records.ts'
import { openDeps, type Deps, type DepsOverrides } from './deps.ts'

/** Opens app.db (migrating it) and the dataset registry; records are assembled in process. */
export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  return { ...openDeps(config, overrides), records: inProcessRecords }
}
