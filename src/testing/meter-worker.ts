/**
 * Test helper process: opens app.db on its own connection and meters N lookups for an account as
 * fast as it can, printing how many were allowed. Used to prove the quota under real concurrency.
 */
import { openAppDb } from '../db/app-db.ts'
import { verifyKey } from '../keys/keys.ts'
import { meter } from '../keys/usage.ts'
import { silentLogger } from '../log.ts'

const [dbPath, secret, count, at] = process.argv.slice(2)
if (!dbPath || !secret || !count || !at)
  throw new Error('usage: meter-worker DB SECRET COUNT ISO_TIME')
const { sqlite } = openAppDb(dbPath)
const when = new Date(at)
const v = verifyKey(sqlite, secret, when.getTime())
if (!v.ok) throw new Error(`key rejected: ${v.reason}`)
let allowed = 0
for (let i = 0; i < Number(count); i++)
  if (meter({ db: sqlite, log: silentLogger() }, v.caller, 1, when).allowed) allowed++
sqlite.close()
process.stdout.write(`${allowed}\n`)
