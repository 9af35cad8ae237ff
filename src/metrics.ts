import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/** Prometheus metrics of one app instance (no per-key labels). */
export function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'cvk_' })
  return {
    registry,
    httpRequests: new Counter({
      name: 'cvk_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'cvk_http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['route'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    billedLookups: new Counter({
      name: 'cvk_billed_lookups_total',
      help: 'Lookups counted against a quota',
      registers: [registry],
    }),
    signInChecks: new Counter({
      name: 'cvk_console_sign_in_checks_total',
      help: 'Console sign-in passwords checked (attempts past the sign-in limits)',
      registers: [registry],
    }),
    quotaRefusals: new Counter({
      name: 'cvk_quota_refusals_total',
      help: 'Calls refused at a hard quota cap',
      registers: [registry],
    }),
    refusedCalls: new Counter({
      name: 'cvk_refused_calls_total',
      help: 'Live calls refused before they were answered: quota (a hard cap), plan (no active subscription), suspended (the account)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    datasetInfo: new Gauge({
      name: 'cvk_dataset_rows',
      help: 'Rows of the active version of each dataset',
      labelNames: ['dataset', 'channel'] as const,
      registers: [registry],
    }),
    datasetAge: new Gauge({
      name: 'cvk_dataset_age_seconds',
      help: 'Seconds since the active version of each dataset was activated',
      labelNames: ['dataset', 'channel'] as const,
      registers: [registry],
    }),
    dataDirFreeBytes: new Gauge({
      name: 'cvk_data_dir_free_bytes',
      help: 'Bytes available to the appliance on the file system of the data directory',
      registers: [registry],
    }),
    dataDirSizeBytes: new Gauge({
      name: 'cvk_data_dir_size_bytes',
      help: 'Size in bytes of the file system of the data directory',
      registers: [registry],
    }),
    crosschecks: new Counter({
      name: 'cvk_crosschecks_total',
      help: 'Cross-checks against the regulator by outcome',
      labelNames: ['status', 'reason'] as const,
      registers: [registry],
    }),
    syncFailures: new Gauge({
      name: 'cvk_sync_last_run_failed',
      help: '1 when the last sync run of a dataset failed',
      labelNames: ['dataset'] as const,
      registers: [registry],
    }),
  }
}
export type Metrics = ReturnType<typeof createMetrics>
