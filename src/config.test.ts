import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { describe, expect, test } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { ConfigError, DATASETS, defaultRecordWorkers, Env, loadConfig } from './config.ts'
import { DATASET_NAMES } from './db/names.ts'

describe('config', () => {
  test('.env.example lists exactly the variables the appliance reads', () => {
    const names = readFileSync('.env.example', 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.slice(0, l.indexOf('=')))
    expect(names.sort()).toEqual(Object.keys(Env.shape).sort())
  })

  test('.env.example values are themselves valid', () => {
    const env = Object.fromEntries(
      readFileSync('.env.example', 'utf8')
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    )
    const c = loadConfig(env)
    expect(c.port).toBe(3000)
    expect(c.sync.enabled).toBe(true)
    expect(c.crosscheck.webKey).toBeNull()
  })

  test('.env.example shows every default the code uses (no drift)', () => {
    const lines = readFileSync('.env.example', 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
    const wrong: string[] = []
    for (const l of lines) {
      const name = l.slice(0, l.indexOf('=')) as keyof typeof Env.shape
      const value = l.slice(l.indexOf('=') + 1)
      const schema = Env.shape[name]
      const byDefault: unknown = schema.parse(undefined)
      const shown: unknown = schema.parse(value)
      if (JSON.stringify(shown) !== JSON.stringify(byDefault))
        wrong.push(
          `${name}=${value} (the code's default: ${JSON.stringify(byDefault) ?? '(unset)'})`,
        )
    }
    expect(wrong).toEqual([])
  })

  test('compose.yaml passes the whole .env into the container', () => {
    const compose = parseYaml(readFileSync('compose.yaml', 'utf8')) as {
      services: { api: { env_file: { path: string }[]; environment: Record<string, string> } }
    }
    const api = compose.services.api
    expect(api.env_file.map((f) => f.path)).toEqual(['.env'])
    // only what the image fixes; every other variable comes from .env as documented once
    expect(Object.keys(api.environment).sort()).toEqual(['DATA_DIR', 'PORT'])
  })

  test('the download ceiling: one for every dataset, and per dataset', () => {
    expect(DATASETS).toEqual(DATASET_NAMES)
    const c = loadConfig({
      SYNC_DOWNLOAD_MAX_MINUTES: '90',
      SYNC_DOWNLOAD_MAX_MINUTES_BY_DATASET: 'census=240, oos=30',
    })
    expect(c.sync.downloadMaxMinutes).toBe(90)
    expect(c.sync.downloadMaxMinutesBy).toEqual({ census: 240, oos: 30 })
    expect(loadConfig({}).sync.downloadMaxMinutes).toBe(180)
    expect(() => loadConfig({ SYNC_DOWNLOAD_MAX_MINUTES_BY_DATASET: 'censsu=10' })).toThrow(
      /dataset=minutes pairs/,
    )
  })

  test('defaults', () => {
    const c = loadConfig({})
    expect(c.port).toBe(3000)
    expect(c.host).toBe('0.0.0.0')
    expect(c.sync.baseUrl).toBe('https://data.transportation.gov')
    expect(c.sync.appToken).toBeNull()
    expect(c.paths.appDb.endsWith('data/runtime/app.db')).toBe(true)
    expect(c.memory.heapGrowingPercent).toBe(30)
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).memory.heapGrowingPercent).toBe(0)
    expect(c.records.workers).toBe(defaultRecordWorkers(availableParallelism()))
    expect(loadConfig({ RECORD_WORKERS: '0' }).records.workers).toBe(0)
    expect(loadConfig({ RECORD_WORKERS: '3' }).records.workers).toBe(3)
  })

  test('record workers by default: one per core beyond the main thread, 1 to 4', () => {
    expect([1, 2, 3, 4, 8, 64].map(defaultRecordWorkers)).toEqual([1, 1, 2, 3, 4, 4])
  })

  test.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ SYNC_ENABLED: 'yes' }, 'SYNC_ENABLED'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ HEAP_GROWING_PERCENT: '-5' }, 'HEAP_GROWING_PERCENT'],
    [{ RECORD_WORKERS: 'many' }, 'RECORD_WORKERS'],
    [{ FMCSA_BASE_URL: 'not a url' }, 'FMCSA_BASE_URL'],
    [{ CROSSCHECK_MODE: 'sometimes' }, 'CROSSCHECK_MODE'],
    [{ SYNC_SCHEDULE_DAILY: 'daily' }, 'SYNC_SCHEDULE_DAILY'],
    [{ TLS_CERT_FILE: '/x.pem' }, 'TLS_'],
  ])('invalid %j is refused naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(name)
  })

  test('blank values mean unset (a blank token must never be sent)', () => {
    const c = loadConfig({ SOCRATA_APP_TOKEN: '', PORT: '', QCMOBILE_WEBKEY: '' })
    expect(c.sync.appToken).toBeNull()
    expect(c.port).toBe(3000)
    expect(c.crosscheck.webKey).toBeNull()
  })

  test('national OOS averages are configurable and validated', () => {
    expect(loadConfig({ NATIONAL_AVG_VEHICLE_OOS: '21.3' }).safety.nationalAverages).toEqual({
      driver: 5.51,
      vehicle: 21.3,
      hazmat: 4.5,
      period: '2009-2010',
    })
    expect(() => loadConfig({ NATIONAL_AVG_DRIVER_OOS: '140' })).toThrow('NATIONAL_AVG_DRIVER_OOS')
  })

  test('SYNC_ENABLED=false turns syncing off', () => {
    expect(loadConfig({ SYNC_ENABLED: 'false' }).sync.enabled).toBe(false)
  })
})
