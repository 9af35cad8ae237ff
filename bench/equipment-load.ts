/**
 * Only bench/run.ts's "equipment lookup" step, against an existing data directory with the
 * census and equipment datasets: GET /v1/equipment/{vin} over random VINs of the built file, on
 * one server, after a warm-up. Prints figures, asserts nothing. The run adds an account and a
 * key to the directory's app.db.
 * `npx tsx bench/equipment-load.ts --data-dir DIR [--duration 10] [--connections 32]
 * [--cpu-prof PROFILE_DIR]` (--cpu-prof: the server writes a V8 CPU profile there when it stops).
 */
import { once } from 'node:events'
import { resolve } from 'node:path'
import { dataDirWith, equipmentFacts, equipmentLoad, startApi } from './harness.ts'
import { args, log } from './options.ts'

const { dataDir, file: file } = dataDirWith('equipment')
const facts = equipmentFacts(file, 200_000)
const profile = args['cpu-prof']
const api = await startApi(
  dataDir,
  {},
  profile ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profile)}`] : [],
)
try {
  await equipmentLoad('equipment lookup', api, facts.sample)
} finally {
  const exited = once(api.server, 'exit')
  api.server.kill('SIGTERM')
  await exited
  log(profile ? `server CPU profile in ${resolve(profile)}` : 'server stopped')
}
