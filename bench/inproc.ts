/**
 * Where one lookup's time goes, in process (no HTTP, no load generator): the key check, metering,
 * the record assembly and the JSON, each timed over the same random USDOTs of an imported bench
 * data directory; then the record's parts (the link facts, the equipment block, the dataset part,
 * the completion a record worker does) and a pass over recurring USDOTs served from the record
 * cache (what the main thread does for a cache hit). Each line gives wall and CPU µs a lookup.
 * `npx tsx bench/inproc.ts DATA_DIR [ITERATIONS]` (run `npm run bench` first).
 */
import { isoDate } from '../src/clock.ts'
import { loadConfig } from '../src/config.ts'
import { createDeps } from '../src/compose.ts'
import { meterCall } from '../src/keys/billing.ts'
import { openRecords } from '../src/carriers/records.ts'
import { answerText, toCarrierJson } from '../src/carriers/json.ts'
import { answerOf, answerRecord } from '../src/carriers/answer.ts'
import { completeRecord, recordData } from '../src/carriers/record.ts'
import { dataReasons } from '../src/carriers/data-check.ts'
import { linkFacts } from '../src/identity/links.ts'
import { equipmentBlock } from '../src/equipment/record.ts'
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

function time(label: string, fn: (dot: number) => unknown, over: readonly number[] = dots) {
  for (let i = 0; i < Math.min(2_000, over.length); i++) fn(over[i] ?? lo) // warm-up
  const cpu = process.cpuUsage()
  const t = process.hrtime.bigint()
  for (const dot of over) fn(dot)
  const us = Number(process.hrtime.bigint() - t) / 1000 / over.length
  const used = process.cpuUsage(cpu)
  const cpuUs = (used.user + used.system) / over.length
  process.stdout.write(
    `${label.padEnd(34)} ${us.toFixed(1).padStart(7)} µs  cpu ${cpuUs.toFixed(1).padStart(7)} µs\n`,
  )
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

// the record's parts, as a record worker assembles an answer not cached
const view = deps.datasets.view('live')
const today = isoDate(deps.clock())
const equipment = view.get('equipment')
time('  link facts', (dot) => linkFacts(view, dot, null))
time('  equipment block', (dot) =>
  equipmentBlock(equipment, dot, { legalName: 'X', dbaName: null, powerUnits: null }),
)
time('  dataset part (recordData)', (dot) => recordData({ today }, view, census, dot))
const reasons = dataReasons({ now: Date.now(), maxAgeHours: 48, db: deps.db }, view)
const parts = dots.map((dot) => recordData({ today }, view, census, dot))
let at = 0
time('  completion + text (worker)', () => {
  const data = parts[at++ % parts.length]
  return data && answerRecord({ db: deps.db, today, dataReasons: reasons }, data)
})

// a cache hit on the main thread: the cached dataset part completed and written as text
const recurring = dots.slice(0, 1_000)
const cachedData = recurring.map((dot) => recordData({ today }, view, census, dot))
at = 0
time(
  'cached: completion + answer text',
  () => {
    const data = cachedData[at++ % cachedData.length]
    const r = data && completeRecord({ db: deps.db, today }, data, reasons)
    return r && answerText(answerOf(r).body, r, { usage, requestId: 'x', source: r.source })
  },
  Array.from({ length: Math.min(iterations, 20_000) }, (_, i) => recurring[i % 1_000] ?? lo),
)
deps.close()
