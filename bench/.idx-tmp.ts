import { copyFileSync } from 'node:fs'
import Database from 'better-sqlite3'
const [src, mod] = [process.argv[2] as string, process.argv[3] as string]
const dst = `/tmp/srch-idx-${process.pid}.db`
copyFileSync(src, dst)
const db = new Database(dst)
db.pragma('journal_mode = OFF')
db.pragma('synchronous = OFF')
const drop = db.prepare(`SELECT name, type FROM sqlite_master WHERE (name GLOB 'search_*' OR name GLOB 'companies_fts*') AND type IN ('table','view') AND sql NOT LIKE 'CREATE TABLE ''%'`).all() as { name: string; type: string }[]
for (const t of drop) { try { db.exec(`DROP ${t.type === 'view' ? 'VIEW' : 'TABLE'} IF EXISTS "${t.name}"`) } catch {} }
db.exec('VACUUM')
const { buildSearchIndex } = await import(mod)
const t = performance.now()
const c0 = process.cpuUsage()
buildSearchIndex(db)
const cu = process.cpuUsage(c0)
console.log('index build', ((performance.now() - t) / 1000).toFixed(2), 's wall', ((cu.user + cu.system) / 1e6).toFixed(2), 's cpu', (db.prepare(`SELECT sum(pgsize) s FROM dbstat WHERE name GLOB 'search_*' OR name GLOB 'companies_fts*'`).get() as {s:number}).s / 1e6, 'MB')
db.close()
