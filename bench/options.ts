/** The bench's command-line options (bench/run.ts describes them), its constants and its log. */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'

export const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean' },
    full: { type: 'boolean' },
    'reuse-data': { type: 'boolean' },
    'census-rows': { type: 'string' },
    all: { type: 'boolean' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    lookups: { type: 'string' },
    // bench/equipment-load.ts: an existing data directory, and where its server writes a CPU profile
    'data-dir': { type: 'string' },
    'cpu-prof': { type: 'string' },
    // bench/lookup-load.ts: extra Node options for the server (an A/B of a runtime flag)
    'node-arg': { type: 'string', multiple: true },
  },
})
export const smoke = args.smoke === true
// --full: every dataset at its real size around a 4.5 M-row census (generated the first time and
// kept under data/bench/)
export const full = args.full === true
export const censusRows = Number(
  args['census-rows'] ?? (smoke ? 20_000 : full ? 4_500_000 : 500_000),
)
export const duration = Number(args.duration ?? (smoke ? 2 : 10))
/**
 * Seconds of lookups before a server's lookups are measured. V8 optimises the server's code over
 * its first tens of seconds of load: its compiler threads take a large share of the CPU at first
 * and little once it is done, and throughput rises meanwhile. The
 * figures are a server's that has been answering for a while; its first seconds are printed too.
 */
export const jitWarmup = smoke ? 1 : 30
export const connections = Number(args.connections ?? 32)
// the memory curve: this many lookups against one server, its RSS sampled ten times on the way
export const curveLookups = Number(args.lookups ?? (smoke ? 5_000 : full ? 1_000_000 : 200_000))
export const root = resolve('data/bench')
export const tsx = ['--import', 'tsx']
export const FIRST_DOT = 10_000
// every server and importer this bench starts inherits its environment: glibc's malloc arenas
// capped as the Docker image caps them (Dockerfile), unless the caller chose otherwise
process.env.MALLOC_ARENA_MAX ??= '2'

export function log(s: string) {
  process.stdout.write(`${s}\n`)
}
