/**
 * The frozen legacy L&I files (FMCSA's L&I data definitions): Carrier, ActPendInsur, InsHist, AuthHist,
 * Revocation and (optional) BOC3, as they stood on 2026-05-14 when FMCSA moved to Motus. Files are
 * read by position (the `text%2Fplain` form has no header; the `rows.csv` form and hand-made
 * copies may have one, which is skipped). USDOT is zero-padded here (`00000000` = none), dockets
 * are one string (`MC421775`), dates MM/DD/YYYY and amounts in thousands of dollars.
 */
import { statSync } from 'node:fs'
import { readCsv, type ReadCsvOptions } from '../ingest/csv.ts'
import * as N from '../ingest/normalize.ts'
import { buildParseOptions, parseInWorker, PARSE_WORKER_MIN_BYTES } from '../ingest/parallel.ts'
import type { BuildContext, DatasetSpec, SourceFileSpec } from '../ingest/types.ts'
import {
  authorityKind,
  BLANK_BASELINE_ROW,
  buildTables,
  checkFile,
  classCode,
  contactValues,
  eventKind,
  flagInt,
  formCode,
  insertAll,
  insType,
  isBlankRow,
  legacyDate,
  legacyMoney,
  rowKey,
  SHARED_INSERTS,
  upper,
  SHIFTED,
  statLetter,
  widthProblem,
  type Notes,
} from './tables.ts'

export const LEGACY_AS_OF = '2026-05-14'

export const LEGACY_FILE_IDS = {
  carrier: '6eyk-hxee',
  actPendInsur: 'qh9u-swkp',
  insHist: '6sqe-dvqs',
  authHist: '9mw4-x3tu',
  revocation: 'sa6p-acbp',
  boc3: '2emp-mxtb',
} as const

/** Field counts of each positional file. */
export const LEGACY_WIDTHS: Record<string, number> = {
  [LEGACY_FILE_IDS.carrier]: 43,
  [LEGACY_FILE_IDS.actPendInsur]: 11,
  [LEGACY_FILE_IDS.insHist]: 17,
  [LEGACY_FILE_IDS.authHist]: 9,
  [LEGACY_FILE_IDS.revocation]: 6,
  [LEGACY_FILE_IDS.boc3]: 9,
}

const LEGACY_DDL = `
CREATE TABLE carriers (
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER, mx_type TEXT,
  common_stat TEXT, contract_stat TEXT, broker_stat TEXT,
  common_app_pend INTEGER, contract_app_pend INTEGER, broker_app_pend INTEGER,
  common_rev_pend INTEGER, contract_rev_pend INTEGER, broker_rev_pend INTEGER,
  property_chk INTEGER, passenger_chk INTEGER, hhg_chk INTEGER, private_chk INTEGER, enterprise_chk INTEGER,
  min_cov INTEGER, cargo_req INTEGER, bond_req INTEGER, bipd_file INTEGER, cargo_file INTEGER, bond_file INTEGER,
  undeliverable_mail INTEGER, dba_name TEXT, legal_name TEXT,
  bus_street TEXT, bus_city TEXT, bus_state TEXT, bus_country TEXT, bus_zip TEXT, bus_phone TEXT,
  mail_street TEXT, mail_city TEXT, mail_state TEXT, mail_country TEXT, mail_zip TEXT
) STRICT;
`

const files: SourceFileSpec[] = [
  {
    id: LEGACY_FILE_IDS.carrier,
    title: 'Legacy Carrier (all with history)',
    format: 'rows',
    kind: 'awh',
    required: true,
    altIds: ['u4i8-4m26'],
  },
  {
    id: LEGACY_FILE_IDS.actPendInsur,
    title: 'Legacy ActPendInsur (all with history)',
    format: 'rows',
    kind: 'awh',
    required: true,
    altIds: ['y77m-3nfx'],
  },
  {
    id: LEGACY_FILE_IDS.insHist,
    title: 'Legacy InsHist (all with history)',
    format: 'rows',
    kind: 'awh',
    required: true,
    altIds: ['nzpz-e5xn'],
  },
  {
    id: LEGACY_FILE_IDS.authHist,
    title: 'Legacy AuthHist (all with history)',
    format: 'rows',
    kind: 'awh',
    required: true,
    altIds: ['wahn-z3rq'],
  },
  {
    id: LEGACY_FILE_IDS.revocation,
    title: 'Legacy Revocation (all with history)',
    format: 'rows',
    kind: 'awh',
    required: true,
    altIds: ['rwr4-5nkg'],
  },
  {
    id: LEGACY_FILE_IDS.boc3,
    title: 'Legacy BOC-3 (all with history)',
    format: 'rows',
    kind: 'awh',
    required: false,
  },
]

/** How a positional legacy file is read (an added header row is skipped). */
const CSV: Omit<ReadCsvOptions, 'signal'> = {
  header: 'optional-header',
  columns: [],
  headerFirstField: /^[A-Za-z_ ]+$/,
}

type LegacyKind = keyof typeof LEGACY_FILE_IDS
type Values = (string | number | null)[]

const SHIFTED_REASON = 'a date in an amount field (shifted columns)'
/** Row parsers per file: the values after (prefix, number, dot_number), or a reject reason. */
const PARSERS: Record<LegacyKind, (f: string[], notes: Notes) => Values | string> = {
  carrier(f, notes) {
    const mx = (f[2] ?? '').trim().toUpperCase()
    return [
      mx === '' ? null : mx,
      statLetter(f[4], notes),
      statLetter(f[5], notes),
      statLetter(f[6], notes),
      flagInt(f[7]),
      flagInt(f[8]),
      flagInt(f[9]),
      flagInt(f[10]),
      flagInt(f[11]),
      flagInt(f[12]),
      flagInt(f[13]),
      flagInt(f[14]),
      flagInt(f[15]),
      flagInt(f[16]),
      flagInt(f[17]),
      N.thousands(f[18]),
      flagInt(f[19]),
      flagInt(f[20]),
      N.thousands(f[21]),
      flagInt(f[22]),
      flagInt(f[23]),
      flagInt(f[24]),
      ...contactValues(f, 25, 35),
    ]
  },
  actPendInsur(f, notes) {
    const form = formCode(f[2])
    const type = insType(undefined, form, f[3])
    const underlying = legacyMoney(f[7], type, notes)
    const max = legacyMoney(f[8], type, notes)
    if (underlying === SHIFTED || max === SHIFTED) return SHIFTED_REASON
    return [
      form,
      type,
      classCode(f[3]),
      N.text(f[4]),
      N.text(f[5]),
      underlying,
      max,
      legacyDate(f[9]),
      legacyDate(f[10]),
      legacyDate(f[6]),
    ]
  },
  insHist(f, notes) {
    const form = formCode(f[2])
    const type = insType(undefined, form, f[6])
    const min = legacyMoney(f[8], type, notes)
    const underlying = legacyMoney(f[11], type, notes)
    const max = legacyMoney(f[12], type, notes)
    if (min === SHIFTED || underlying === SHIFTED || max === SHIFTED) return SHIFTED_REASON
    return [
      form,
      type,
      classCode(f[9]),
      N.text(f[16]),
      N.text(f[7]),
      min,
      underlying,
      max,
      legacyDate(f[10]),
      legacyDate(f[13]),
      upper(f[14]) ?? upper(f[3]),
      upper(f[4]),
    ]
  },
  authHist(f) {
    const orig = upper(f[4])
    const disp = upper(f[6])
    return [
      authorityKind(f[3]),
      eventKind(orig),
      orig,
      legacyDate(f[5]),
      eventKind(disp),
      disp,
      legacyDate(f[8]) ?? legacyDate(f[7]),
      null,
    ]
  },
  revocation(f) {
    return [authorityKind(f[2]), legacyDate(f[3]), upper(f[4]), legacyDate(f[5])]
  },
  boc3(f) {
    return [N.text(f[2]), N.text(f[5]), N.text(f[6])]
  },
}

const INSERTS: Record<LegacyKind, string> = {
  carrier: insertAll('carriers', 38),
  actPendInsur: SHARED_INSERTS.policies,
  insHist: SHARED_INSERTS.insHist,
  authHist: SHARED_INSERTS.authEvents,
  revocation: SHARED_INSERTS.revocations,
  boc3: SHARED_INSERTS.boc3,
}

/** A row to insert (docket, USDOT, then the file's own values) and what its parser noted. */
export interface LegacyRow {
  values: Values
  notes: string[] | null
}

/** What the row being parsed noted (legacyRow takes them with the row). */
const noted: string[] = []
const collect: Notes = {
  note(key, n = 1) {
    for (let i = 0; i < n; i++) noted.push(key)
  },
}

/**
 * One record of a positional file: width, docket and deletion-marker checks, then its parser;
 * a reject reason, or the row. The same function in this thread and in a parse worker, so both
 * insert, reject and note alike; a rejected row is counted as a reject only, not by its notes.
 */
function legacyRow(kind: LegacyKind, f: string[]): LegacyRow | string {
  const wrong = widthProblem(f, LEGACY_WIDTHS[LEGACY_FILE_IDS[kind]] ?? 0)
  if (wrong) return wrong
  const k = rowKey(f)
  if (typeof k === 'string') return k
  if (isBlankRow(f)) return BLANK_BASELINE_ROW
  noted.length = 0
  const values = PARSERS[kind](f, collect)
  if (typeof values === 'string') return values
  return {
    values: [k.d.prefix, k.d.number, k.dot, ...values],
    notes: noted.length ? noted.splice(0) : null,
  }
}

// the row parsers a parse worker imports from this module (parseInWorker), one per file
export const legacyCarrierRow = (f: string[]) => legacyRow('carrier', f)
export const legacyActPendInsurRow = (f: string[]) => legacyRow('actPendInsur', f)
export const legacyInsHistRow = (f: string[]) => legacyRow('insHist', f)
export const legacyAuthHistRow = (f: string[]) => legacyRow('authHist', f)
export const legacyRevocationRow = (f: string[]) => legacyRow('revocation', f)
export const legacyBoc3Row = (f: string[]) => legacyRow('boc3', f)
const ROW_EXPORTS: Record<LegacyKind, string> = {
  carrier: 'legacyCarrierRow',
  actPendInsur: 'legacyActPendInsurRow',
  insHist: 'legacyInsHistRow',
  authHist: 'legacyAuthHistRow',
  revocation: 'legacyRevocationRow',
  boc3: 'legacyBoc3Row',
}

/**
 * Loads one positional file, every record a row or a counted reject. A file of at least
 * PARSE_WORKER_MIN_BYTES is parsed in a worker thread while this thread inserts: the frozen files
 * hold about 16 million rows, and parsing them in the inserting thread made the load most of the
 * build (on 2 cores a second parse worker gained nothing and cost memory).
 */
async function loadFile(ctx: BuildContext, kind: LegacyKind, path: string): Promise<void> {
  const id = LEGACY_FILE_IDS[kind]
  const insert = ctx.db.prepare(INSERTS[kind])
  const add = (r: LegacyRow) => {
    insert.run(r.values)
    if (r.notes) for (const key of r.notes) ctx.note(key)
    ctx.accept(id)
  }
  if (statSync(path).size < PARSE_WORKER_MIN_BYTES) {
    await ctx.insertBatches(id, readCsv(path, { ...CSV, signal: ctx.signal }), (r) => {
      const row = legacyRow(kind, r.fields)
      if (typeof row === 'string') ctx.reject(id, r.line, row)
      else add(row)
    })
    return
  }
  const parsed = parseInWorker<LegacyRow>(
    path,
    CSV,
    { module: import.meta.url, exportName: ROW_EXPORTS[kind] },
    (line, reason) => ctx.reject(id, line, reason),
    buildParseOptions(ctx),
  )
  await ctx.insertChunks(id, parsed, ({ row }) => add(row))
}

async function loadFiles(ctx: BuildContext): Promise<void> {
  for (const kind of Object.keys(LEGACY_FILE_IDS) as LegacyKind[]) {
    const id = LEGACY_FILE_IDS[kind]
    const path = ctx.inputs.get(id)
    const spec = files.find((f) => f.id === id)
    if (!path) {
      if (spec?.required) throw new Error(`legacy file ${id} is missing`)
      continue
    }
    await loadFile(ctx, kind, path)
    checkFile(ctx, legacyDataset, id, spec?.required ?? false)
  }
}

const buildLegacy = (ctx: BuildContext) =>
  buildTables(ctx, { ddl: LEGACY_DDL, authorityTable: 'carriers' }, () => loadFiles(ctx))

export const legacyDataset: DatasetSpec = {
  name: 'legacy',
  title: 'Legacy L&I (frozen 2026-05-14)',
  files,
  schedule: 'legacy',
  frozenAsOf: LEGACY_AS_OF,
  // file format 2: docket_rows
  format: 2,
  minRowsRatio: 0.9,
  maxRejectRatio: 0.02,
  build: buildLegacy,
}
