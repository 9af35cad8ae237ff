import { loadConfig } from '../src/config.ts'
import { createDeps } from '../src/deps.ts'
import { findRecord } from '../src/carriers/lookup.ts'
import { toCarrierJson } from '../src/carriers/json.ts'
import { createAccount } from '../src/keys/accounts.ts'
import { createKey, verifyKey } from '../src/keys/keys.ts'
import { silentLogger } from '../src/log.ts'
import { meterCall } from '../src/carriers/lookup.ts'
const [dataDir] = process.argv.slice(2)
const config = loadConfig({ ...process.env, DATA_DIR: dataDir!, SYNC_ENABLED: 'false' })
const deps = createDeps(config, { log: silentLogger() })
const account = createAccount(deps.db, { name: 'p', plan: 'enterprise' }, Date.now())
const { secret } = createKey(deps.db, { accountId: account.id, mode: 'live' }, Date.now())
const v = verifyKey(deps.db, secret, Date.now()); if (!v.ok) throw 0
const usage = meterCall(deps, v.caller)
const dots = Array.from({ length: 5000 }, () => 10000 + Math.floor(Math.random() * 4_500_000))
for (const d of dots) findRecord(deps, v.caller, d)
const t = process.hrtime.bigint()
for (let k = 0; k < 6; k++) for (const d of dots) { const r = findRecord(deps, v.caller, d); if (r) JSON.stringify(toCarrierJson(r, { usage, requestId: 'x', source: r.source })) }
console.log(Number(process.hrtime.bigint() - t) / 1000 / 30000, 'µs')
deps.close()
