const [root, data] = [process.argv[2] as string, process.argv[3] as string]
const { loadConfig } = await import(`${root}/src/config.ts`)
const { createDeps } = await import(`${root}/src/deps.ts`)
const { silentLogger } = await import(`${root}/src/log.ts`)
const Q = await import(`${root}/src/search/query.ts`)
Q.setRankedCacheSize?.(0)
const deps = createDeps(loadConfig({ DATA_DIR: data, SYNC_ENABLED: 'false', LOG_LEVEL: 'silent', SAMPLE_DATA_DIR: `${data}/no-sample` }), { log: silentLogger() })
const view = deps.datasets.view('live')
const qs: [string, Record<string, string>][] = [
  ['TRUCKING', {}], ['LLC', {}], ['CO', {}], ['EXPRESS', {}], ['SMITH', {}], ['JOHN', {}],
  ['TR', {}], ['WILL', {}], ['STAR ', {}], ['F C TRUCK', {}], ['PINNACLE FREIGHT CORP', {}],
  ['JACKSON BROTHERS HAULING L', {}], ['PRIME GOLDEN DA', {}], ['NIPROX', {}], ['ULZ', {}],
  ['TRUCKING', { state: 'TX' }], ['TRUCKING', { entity_type: 'carrier' }], ['CO', { country: 'CA' }],
  ['JOH', { state: 'TX' }], ['SER', { status: 'active' }], ['TANK L', { state: 'CA', entity_type: 'carrier', status: 'active' }],
  ['SMITH TRUCKING', {}], ['EAGLE EXPRESS', {}],
]
let total = 0
for (const [q, f] of qs) {
  const times: number[] = []
  for (let i = 0; i < 15; i++) {
    const t = process.hrtime.bigint()
    Q.searchCompanies(view, { q, ...f, limit: 20, offset: 0, today: '2026-11-26' })
    times.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  times.sort((a, b) => a - b)
  total += times[0]!
  console.log(`${(q + ' ' + JSON.stringify(f)).padEnd(60)} min ${times[0]!.toFixed(2)} med ${times[7]!.toFixed(2)}`)
}
console.log('sum of mins', total.toFixed(1))
deps.close()
