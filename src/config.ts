import { availableParallelism } from 'node:os'
import { join, resolve } from 'node:path'
import { z } from 'zod'

/** Thrown by loadConfig; main.ts prints it and exits 1. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

const unsetIfEmpty = <T extends z.ZodType>(s: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), s)
// z.coerce.boolean() reads "false" as true
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')
const cron = z.string().regex(/^(\S+\s+){4,5}\S+$/, 'must be a 5- or 6-field cron expression')
const dollars = z.coerce.number().nonnegative()

/** The dataset names (db/names.ts DATASET_NAMES, which a test keeps equal) for per-dataset settings. */
export const DATASETS = [
  'census',
  'legacy',
  'motus',
  'sms',
  'oos',
  'violations',
  'equipment',
] as const

/** Every environment variable the appliance reads. `.env.example` is tested against this list. */
export const Env = z.object({
  PORT: unsetIfEmpty(z.coerce.number().int().min(0).max(65535).default(3000)),
  HOST: unsetIfEmpty(z.string().default('0.0.0.0')),
  DATA_DIR: unsetIfEmpty(z.string().default('data/runtime')),
  LOG_LEVEL: unsetIfEmpty(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  PUBLIC_URL: unsetIfEmpty(z.url().optional()),
  TLS_CERT_FILE: unsetIfEmpty(z.string().optional()),
  TLS_KEY_FILE: unsetIfEmpty(z.string().optional()),
  SAMPLE_DATA_DIR: unsetIfEmpty(z.string().optional()),
  HTTP_HEADERS_TIMEOUT_MS: unsetIfEmpty(z.coerce.number().int().min(1000).default(10_000)),
  HTTP_REQUEST_TIMEOUT_MS: unsetIfEmpty(z.coerce.number().int().min(1000).default(30_000)),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: unsetIfEmpty(z.coerce.number().int().min(0).default(5_000)),

  SYNC_ENABLED: unsetIfEmpty(bool.default(true)),
  SYNC_SCHEDULE_DAILY: unsetIfEmpty(cron.default('30 14 * * *')),
  SYNC_SCHEDULE_MONTHLY: unsetIfEmpty(cron.default('0 6 3 * *')),
  SYNC_SCHEDULE_LEGACY: unsetIfEmpty(cron.default('0 5 * * 0')),
  FMCSA_BASE_URL: unsetIfEmpty(z.url().default('https://data.transportation.gov')),
  SOCRATA_APP_TOKEN: unsetIfEmpty(z.string().optional()),
  SYNC_TIMEOUT_MS: unsetIfEmpty(z.coerce.number().int().positive().default(120_000)),
  SYNC_RETRIES: unsetIfEmpty(z.coerce.number().int().min(0).max(10).default(3)),
  SYNC_PARALLEL_DOWNLOADS: unsetIfEmpty(z.coerce.number().int().min(1).max(16).default(4)),
  SYNC_MIN_RATE_KBPS: unsetIfEmpty(z.coerce.number().positive().default(100)),
  SYNC_DOWNLOAD_MAX_MINUTES: unsetIfEmpty(z.coerce.number().positive().default(180)),
  SYNC_DOWNLOAD_MAX_MINUTES_BY_DATASET: unsetIfEmpty(
    z
      .string()
      .regex(
        new RegExp(
          `^\\s*(${DATASETS.join('|')})=\\d+(\\.\\d+)?\\s*(,\\s*(${DATASETS.join('|')})=\\d+(\\.\\d+)?\\s*)*$`,
        ),
        `must be dataset=minutes pairs separated by commas (datasets: ${DATASETS.join(', ')})`,
      )
      .optional(),
  ),
  SYNC_VERIFY_COUNT: unsetIfEmpty(bool.default(true)),
  SYNC_STALE_RETRIES: unsetIfEmpty(z.coerce.number().int().min(0).max(20).default(3)),
  SYNC_STALE_DELAY_MS: unsetIfEmpty(z.coerce.number().int().min(0).default(300_000)),
  SYNC_MIN_FREE_MB: unsetIfEmpty(z.coerce.number().int().min(0).default(512)),
  SYNC_OOS_MIN_ROWS: unsetIfEmpty(z.coerce.number().int().min(0).default(10_000)),
  SYNC_FULL_REFRESH_DAYS: unsetIfEmpty(z.coerce.number().positive().default(90)),
  DATASET_MAX_AGE_HOURS: unsetIfEmpty(z.coerce.number().positive().default(72)),
  RECORD_CACHE_ENTRIES: unsetIfEmpty(z.coerce.number().int().min(0).max(1_000_000).default(1000)),
  RECORD_WORKERS: unsetIfEmpty(z.coerce.number().int().min(0).max(16).optional()),
  HEAP_GROWING_PERCENT: unsetIfEmpty(z.coerce.number().int().min(0).max(400).default(30)),

  QCMOBILE_BASE_URL: unsetIfEmpty(z.url().default('https://mobile.fmcsa.dot.gov/qc/services')),
  QCMOBILE_WEBKEY: unsetIfEmpty(z.string().optional()),
  CROSSCHECK_MODE: unsetIfEmpty(z.enum(['off', 'on_demand', 'always']).default('on_demand')),
  CROSSCHECK_TIMEOUT_MS: unsetIfEmpty(z.coerce.number().int().positive().default(3000)),
  CROSSCHECK_CACHE_SECONDS: unsetIfEmpty(z.coerce.number().int().min(0).default(900)),
  CROSSCHECK_MIN_INTERVAL_MS: unsetIfEmpty(z.coerce.number().int().min(0).default(200)),

  KEY_ROTATION_GRACE_HOURS: unsetIfEmpty(z.coerce.number().min(0).default(24)),
  PRICE_PROFESSIONAL_MONTHLY: unsetIfEmpty(dollars.default(249)),
  PRICE_PROFESSIONAL_YEARLY: unsetIfEmpty(dollars.default(2490)),
  PRICE_ENTERPRISE_MONTHLY: unsetIfEmpty(dollars.optional()),
  PRICE_ENTERPRISE_YEARLY: unsetIfEmpty(dollars.optional()),

  NATIONAL_AVG_DRIVER_OOS: unsetIfEmpty(z.coerce.number().min(0).max(100).default(5.51)),
  NATIONAL_AVG_VEHICLE_OOS: unsetIfEmpty(z.coerce.number().min(0).max(100).default(20.72)),
  NATIONAL_AVG_HAZMAT_OOS: unsetIfEmpty(z.coerce.number().min(0).max(100).default(4.5)),
  NATIONAL_AVG_PERIOD: unsetIfEmpty(z.string().trim().min(1).default('2009-2010')),

  WEBHOOK_ALLOWED_TARGETS: unsetIfEmpty(z.string().optional()),
  WEBHOOK_TIMEOUT_MS: unsetIfEmpty(z.coerce.number().int().positive().default(15_000)),

  CHECKS_RETENTION_YEARS: unsetIfEmpty(z.coerce.number().int().min(1).max(100).default(8)),
  /** when the chain heads are published to each account's anchor destinations (cron, UTC) */
  CHECKS_ANCHOR_SCHEDULE: unsetIfEmpty(cron.default('23 4 * * *')),
  CHECKS_ANCHOR_TIMEOUT_MS: unsetIfEmpty(z.coerce.number().int().min(1000).default(30_000)),

  SMTP_URL: unsetIfEmpty(
    z
      .url()
      .refine((u) => /^smtps?:\/\//i.test(u), 'must be an smtp:// or smtps:// URL')
      .optional(),
  ),
  SMTP_FROM: unsetIfEmpty(z.string().trim().min(3).optional()),
  SMTP_TIMEOUT_MS: unsetIfEmpty(z.coerce.number().int().min(1000).default(30_000)),
  CHECKS_TRUSTED_KEY: unsetIfEmpty(
    z
      .string()
      .trim()
      .transform((v) => v.replaceAll(/[\s:]/g, '').toLowerCase())
      .pipe(z.string().regex(/^[0-9a-f]{64}$/, 'a key fingerprint: 64 hex digits'))
      .optional(),
  ),
  HISTORY_RETENTION_YEARS: unsetIfEmpty(z.coerce.number().int().min(1).max(100).default(3)),
})
export type Env = z.infer<typeof Env>

/** `census=240, oos=30` as a map from dataset to number. */
function perDataset(v: string | undefined): Partial<Record<(typeof DATASETS)[number], number>> {
  const out: Partial<Record<(typeof DATASETS)[number], number>> = {}
  for (const pair of (v ?? '').split(',')) {
    const [name, n] = pair.split('=').map((x) => x.trim())
    if (name && n) out[name as (typeof DATASETS)[number]] = Number(n)
  }
  return out
}

export function loadConfig(env: Record<string, string | undefined>) {
  const parsed = Env.safeParse(env)
  if (!parsed.success)
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    )
  const e = parsed.data
  if ((e.TLS_CERT_FILE === undefined) !== (e.TLS_KEY_FILE === undefined)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together')
  }
  if (e.SMTP_URL !== undefined && e.SMTP_FROM === undefined)
    throw new ConfigError('SMTP_FROM must be set with SMTP_URL (the sender address of e-mails)')
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS)
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS')
  const dataDir = resolve(e.DATA_DIR)
  const tls =
    e.TLS_CERT_FILE && e.TLS_KEY_FILE
      ? { certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE }
      : null
  return {
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    publicUrl: e.PUBLIC_URL ?? `${tls ? 'https' : 'http'}://localhost:${e.PORT}`,
    tls,
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    paths: {
      dataDir,
      appDb: join(dataDir, 'app.db'),
      datasets: join(dataDir, 'datasets'),
      downloads: join(dataDir, 'downloads'),
      backups: join(dataDir, 'backups'),
      sample: resolve(e.SAMPLE_DATA_DIR ?? 'data/sample'),
    },
    sync: {
      enabled: e.SYNC_ENABLED,
      schedules: {
        daily: e.SYNC_SCHEDULE_DAILY,
        monthly: e.SYNC_SCHEDULE_MONTHLY,
        legacy: e.SYNC_SCHEDULE_LEGACY,
      },
      baseUrl: e.FMCSA_BASE_URL.replace(/\/+$/, ''),
      appToken: e.SOCRATA_APP_TOKEN ?? null,
      timeoutMs: e.SYNC_TIMEOUT_MS,
      retries: e.SYNC_RETRIES,
      parallelDownloads: e.SYNC_PARALLEL_DOWNLOADS,
      minRateBytesPerSec: e.SYNC_MIN_RATE_KBPS * 1024,
      /** the most minutes one file's download may take, all attempts included */
      downloadMaxMinutes: e.SYNC_DOWNLOAD_MAX_MINUTES,
      downloadMaxMinutesBy: perDataset(e.SYNC_DOWNLOAD_MAX_MINUTES_BY_DATASET),
      verifyCount: e.SYNC_VERIFY_COUNT,
      staleRetries: e.SYNC_STALE_RETRIES,
      staleDelayMs: e.SYNC_STALE_DELAY_MS,
      minFreeBytes: e.SYNC_MIN_FREE_MB * 1024 * 1024,
      oosMinRows: e.SYNC_OOS_MIN_ROWS,
      /** an incrementally fetched file gets its full export again after this many days */
      fullRefreshDays: e.SYNC_FULL_REFRESH_DAYS,
      maxAgeHours: e.DATASET_MAX_AGE_HOURS,
    },
    crosscheck: {
      mode: e.CROSSCHECK_MODE,
      baseUrl: e.QCMOBILE_BASE_URL.replace(/\/+$/, ''),
      webKey: e.QCMOBILE_WEBKEY ?? null,
      timeoutMs: e.CROSSCHECK_TIMEOUT_MS,
      cacheSeconds: e.CROSSCHECK_CACHE_SECONDS,
      minIntervalMs: e.CROSSCHECK_MIN_INTERVAL_MS,
    },
    records: {
      cacheEntries: e.RECORD_CACHE_ENTRIES,
      workers: e.RECORD_WORKERS ?? defaultRecordWorkers(availableParallelism()),
    },
    memory: { heapGrowingPercent: e.HEAP_GROWING_PERCENT },
    safety: {
      nationalAverages: {
        driver: e.NATIONAL_AVG_DRIVER_OOS,
        vehicle: e.NATIONAL_AVG_VEHICLE_OOS,
        hazmat: e.NATIONAL_AVG_HAZMAT_OOS,
        period: e.NATIONAL_AVG_PERIOD,
      },
    },
    keys: { rotationGraceMs: e.KEY_ROTATION_GRACE_HOURS * 3_600_000 },
    prices: {
      professional: { monthly: e.PRICE_PROFESSIONAL_MONTHLY, yearly: e.PRICE_PROFESSIONAL_YEARLY },
      enterprise: {
        monthly: e.PRICE_ENTERPRISE_MONTHLY ?? null,
        yearly: e.PRICE_ENTERPRISE_YEARLY ?? null,
      },
    },
    webhooks: {
      allowedTargets:
        e.WEBHOOK_ALLOWED_TARGETS?.split(',')
          .map((s) => s.trim())
          .filter(Boolean) ?? null,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
    checks: {
      retentionYears: e.CHECKS_RETENTION_YEARS,
      trustedKey: e.CHECKS_TRUSTED_KEY ?? null,
      anchorSchedule: e.CHECKS_ANCHOR_SCHEDULE,
      anchorTimeoutMs: e.CHECKS_ANCHOR_TIMEOUT_MS,
    },
    mail: {
      /** null: e-mail is off (messages wait in the queue until it is configured) */
      url: e.SMTP_URL ?? null,
      from: e.SMTP_FROM ?? null,
      timeoutMs: e.SMTP_TIMEOUT_MS,
    },
    identity: { historyRetentionYears: e.HISTORY_RETENTION_YEARS },
  } as const
}
export type Config = ReturnType<typeof loadConfig>

/**
 * Record worker threads when RECORD_WORKERS is unset: one per core beyond the main thread's, at
 * least one (on 2 cores one worker serves more random lookups than none), at
 * most 4.
 */
export function defaultRecordWorkers(cores: number): number {
  return Math.min(4, Math.max(1, cores - 1))
}
