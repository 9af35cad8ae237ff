/**
 * Where one lookup's time goes, in process (no HTTP, no load generator): the key check, metering,
 * the record assembly and the JSON, each timed over the same random USDOTs of an imported bench
 * data directory. `npx tsx bench/inproc.ts DATA_DIR [ITERATIONS]` (run `npm run bench` first).
 */
import { loadConfig } from '../src/config.ts'
import { createDeps } from '../src/compose.ts'
import { meterCall } from '../src/keys/billing.ts'
import { openRecords } from '../src/carriers/records.ts'
import { toCarrierJson } from '../src/carriers/json.ts'
import { createAccount } from '../src/keys/accounts.ts'
import { createKey, verifyKey } from '../src/keys/keys.ts'
import { silentLogger } from '../src/log.ts'

const [dataDir, itArg] = process.argv.slice(2)
if (!dataDir) throw new Error('usage: inproc DATA_DIR [ITERATIONS]')
const iterations = Number(itArg ?? 20_000)
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, SYNC_ENABLED: 'false' })
const deps = createDeps(config, { log: silentLogger() })
const census = deps.datasets.get('census', 'live')
if (!census) throw new Error(`no live census in ${dataDir}`)
const [lo, hi] = census.db
  .prepare('SELECT min(dot_number), max(dot_number) FROM companies')
  .raw()
  .get() as [number, number]
const account = createAccount(deps.db, { name: 'inproc', plan: 'enterprise' }, Date.now())
const { secret } = createKey(deps.db, { accountId: account.id, mode: 'live' }, Date.now())
const dots = Array.from({ length: iterations }, () => lo + Math.floor(Math.random() * (hi - lo)))

function time(label: string, fn: (dot: number) => unknown) {
  for (let i = 0; i < Math.min(2_000, iterations); i++) fn(dots[i] ?? lo) // warm-up
  const t = process.hrtime.bigint()
  for (const dot of dots) fn(dot)
  const us = Number(process.hrtime.bigint() - t) / 1000 / iterations
  process.stdout.write(`${label.padEnd(34)} ${us.toFixed(1).padStart(7)} µs\n`)
  return us
}

process.stdout.write(`${iterations} lookups over USDOT ${lo}–${hi}\n`)
const auth = time('verifyKey (cached caller)', () => verifyKey(deps.db, secret, Date.now()))
const v = verifyKey(deps.db, secret, Date.now())
if (!v.ok) throw new Error('key')
const meterUs = time('meter (one UPSERT)', () => meterCall(deps, v.caller))
const recordUs = time('record assembly', (dot) => openRecords(deps, v.caller.mode).recordNow(dot))
const usage = meterCall(deps, v.caller)
const jsonUs = time('record + JSON.stringify', (dot) => {
  const r = openRecords(deps, v.caller.mode).recordNow(dot)
  return r && JSON.stringify(toCarrierJson(r, { usage, requestId: 'x', source: r.source }))
})
process.stdout.write(
  `${'sum (auth + meter + record + JSON)'.padEnd(34)} ${(auth + meterUs + jsonUs).toFixed(1).padStart(7)} µs (record alone ${recordUs.toFixed(1)})\n`,
)
deps.close()
