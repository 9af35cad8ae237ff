/**
 * The frozen legacy L&I files (FMCSA-DATA.md §2.2): Carrier, ActPendInsur, InsHist, AuthHist,
 * Revocation and (optional) BOC3, as they stood on 2026-05-14 when FMCSA moved to Motus. Files are
 * read by position (the `text%2Fplain` form has no header; the `rows.csv` form and hand-made
 * copies may have one, which is skipped). USDOT is zero-padded here (`00000000` = none), dockets
 * are one string (`MC421775`), dates MM/DD/YYYY and amounts in thousands of dollars.
 */
import { readCsv } from '../ingest/csv.ts'
import * as N from '../ingest/normalize.ts'
import type { BuildContext, DatasetSpec, SourceFileSpec } from '../ingest/types.ts'
import {
  authorityKind,
  checkFile,
  classCode,
  eventKind,
  fillDotDockets,
  flagInt,
  formCode,
  insType,
  isBlankRow,
  legacyMoney,
  legacyDate,
  SHARED_DDL,
  SHARED_INDEXES,
  SHIFTED,
  statLetter,
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

/** Streams the records of a positional legacy file (an added header row is skipped). */
const rows = (ctx: BuildContext, path: string) =>
  readCsv(path, {
    header: 'optional-header',
    columns: [],
    headerFirstField: /^[A-Za-z_ ]+$/,
    signal: ctx.signal,
  })

/** Common checks of a positional row: width, docket, blank deletion markers. */
function rowKey(
  ctx: BuildContext,
  fileId: string,
  line: number,
  f: string[],
): { d: N.Docket; dot: number | null } | null {
  const width = LEGACY_WIDTHS[fileId] ?? 0
  if (f.length !== width) {
    ctx.reject(fileId, line, `expected ${width} fields, got ${f.length}`)
    return null
  }
  const d = N.docket(f[0])
  if (!d) {
    ctx.reject(fileId, line, `invalid docket ${JSON.stringify(f[0] ?? '')}`)
    return null
  }
  if (isBlankRow(f)) {
    ctx.reject(fileId, line, 'blank row (a deletion marker) in a baseline file')
    return null
  }
  return { d, dot: N.usdot(f[1]) }
}

async function loadCarrier(ctx: BuildContext, path: string): Promise<void> {
  const id = LEGACY_FILE_IDS.carrier
  const insert = ctx.db.prepare(
    `INSERT INTO carriers VALUES (${Array.from({ length: 38 }, () => '?').join(', ')})`,
  )
  await ctx.insertBatches(id, rows(ctx, path), (r) => {
    const f = r.fields
    const k = rowKey(ctx, id, r.line, f)
    if (!k) return
    const mx = (f[2] ?? '').trim().toUpperCase()
    insert.run(
      k.d.prefix,
      k.d.number,
      k.dot,
      mx === '' ? null : mx,
      statLetter(f[4], ctx),
      statLetter(f[5], ctx),
      statLetter(f[6], ctx),
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
      N.text(f[25]),
      N.text(f[26]),
      N.text(f[27]),
      N.text(f[29]),
      N.text(f[30])?.toUpperCase() ?? null,
      N.text(f[31])?.toUpperCase() ?? null,
      N.zip(f[32]),
      N.phoneDigits(f[33]),
      N.text(f[35]),
      N.text(f[37]),
      N.text(f[38])?.toUpperCase() ?? null,
      N.text(f[39])?.toUpperCase() ?? null,
      N.zip(f[40]),
    )
    ctx.accept(id)
  })
}

async function loadActPendInsur(ctx: BuildContext, path: string): Promise<void> {
  const id = LEGACY_FILE_IDS.actPendInsur
  const insert = ctx.db.prepare(
    `INSERT INTO policies (prefix, number, dot_number, form, ins_type, class_code, insurer, policy_no,
       underlying, max_cov, effective_date, cancel_date, trans_date)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  await ctx.insertBatches(id, rows(ctx, path), (r) => {
    const f = r.fields
    const k = rowKey(ctx, id, r.line, f)
    if (!k) return
    const form = formCode(f[2])
    const type = insType(undefined, form, f[3])
    const underlying = legacyMoney(f[7], type, ctx)
    const max = legacyMoney(f[8], type, ctx)
    if (underlying === SHIFTED || max === SHIFTED)
      return ctx.reject(id, r.line, 'a date in an amount field (shifted columns)')
    insert.run(
      k.d.prefix,
      k.d.number,
      k.dot,
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
    )
    ctx.accept(id)
  })
}

async function loadInsHist(ctx: BuildContext, path: string): Promise<void> {
  const id = LEGACY_FILE_IDS.insHist
  const insert = ctx.db.prepare(
    `INSERT INTO ins_hist (prefix, number, dot_number, form, ins_type, class_code, insurer, policy_no,
       min_cov, underlying, max_cov, effective_date, cancel_date, method, cancel_form)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  await ctx.insertBatches(id, rows(ctx, path), (r) => {
    const f = r.fields
    const k = rowKey(ctx, id, r.line, f)
    if (!k) return
    const form = formCode(f[2])
    const type = insType(undefined, form, f[6])
    const min = legacyMoney(f[8], type, ctx)
    const underlying = legacyMoney(f[11], type, ctx)
    const max = legacyMoney(f[12], type, ctx)
    if (min === SHIFTED || underlying === SHIFTED || max === SHIFTED)
      return ctx.reject(id, r.line, 'a date in an amount field (shifted columns)')
    insert.run(
      k.d.prefix,
      k.d.number,
      k.dot,
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
      N.text(f[14])?.toUpperCase() ?? N.text(f[3])?.toUpperCase() ?? null,
      N.text(f[4])?.toUpperCase() ?? null,
    )
    ctx.accept(id)
  })
}

async function loadAuthHist(ctx: BuildContext, path: string): Promise<void> {
  const id = LEGACY_FILE_IDS.authHist
  const insert = ctx.db.prepare(
    `INSERT INTO auth_events (prefix, number, dot_number, authority, orig_event, orig_action,
       orig_date, disp_event, disp_action, disp_date, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
  )
  await ctx.insertBatches(id, rows(ctx, path), (r) => {
    const f = r.fields
    const k = rowKey(ctx, id, r.line, f)
    if (!k) return
    const orig = N.text(f[4])?.toUpperCase() ?? null
    const disp = N.text(f[6])?.toUpperCase() ?? null
    insert.run(
      k.d.prefix,
      k.d.number,
      k.dot,
      authorityKind(f[3]),
      eventKind(orig),
      orig,
      legacyDate(f[5]),
      eventKind(disp),
      disp,
      legacyDate(f[8]) ?? legacyDate(f[7]),
    )
    ctx.accept(id)
  })
}

async function loadRevocation(ctx: BuildContext, path: string): Promise<void> {
  const id = LEGACY_FILE_IDS.revocation
  const insert = ctx.db.prepare(
    `INSERT INTO revocations (prefix, number, dot_number, authority, serve_date, type_desc, effective_date)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  )
  await ctx.insertBatches(id, rows(ctx, path), (r) => {
    const f = r.fields
    const k = rowKey(ctx, id, r.line, f)
    if (!k) return
    insert.run(
      k.d.prefix,
      k.d.number,
      k.dot,
      authorityKind(f[2]),
      legacyDate(f[3]),
      N.text(f[4])?.toUpperCase() ?? null,
      legacyDate(f[5]),
    )
    ctx.accept(id)
  })
}

async function loadBoc3(ctx: BuildContext, path: string): Promise<void> {
  const id = LEGACY_FILE_IDS.boc3
  const insert = ctx.db.prepare(
    'INSERT INTO boc3 (prefix, number, dot_number, agent, city, state) VALUES (?, ?, ?, ?, ?, ?)',
  )
  await ctx.insertBatches(id, rows(ctx, path), (r) => {
    const f = r.fields
    const k = rowKey(ctx, id, r.line, f)
    if (!k) return
    insert.run(k.d.prefix, k.d.number, k.dot, N.text(f[2]), N.text(f[5]), N.text(f[6]))
    ctx.accept(id)
  })
}

const LOADERS: [string, (ctx: BuildContext, path: string) => Promise<void>][] = [
  [LEGACY_FILE_IDS.carrier, loadCarrier],
  [LEGACY_FILE_IDS.actPendInsur, loadActPendInsur],
  [LEGACY_FILE_IDS.insHist, loadInsHist],
  [LEGACY_FILE_IDS.authHist, loadAuthHist],
  [LEGACY_FILE_IDS.revocation, loadRevocation],
  [LEGACY_FILE_IDS.boc3, loadBoc3],
]

async function buildLegacy(ctx: BuildContext): Promise<void> {
  ctx.db.exec(LEGACY_DDL + SHARED_DDL)
  for (const [id, load] of LOADERS) {
    const path = ctx.inputs.get(id)
    const spec = files.find((f) => f.id === id)
    if (!path) {
      if (spec?.required) throw new Error(`legacy file ${id} is missing`)
      continue
    }
    await load(ctx, path)
    checkFile(ctx, legacyDataset, id, spec?.required ?? false)
  }
  ctx.signal.throwIfAborted()
  ctx.db.exec(SHARED_INDEXES)
  fillDotDockets(ctx, 'carriers')
}

export const legacyDataset: DatasetSpec = {
  name: 'legacy',
  title: 'Legacy L&I (frozen 2026-05-14)',
  files,
  schedule: 'legacy',
  frozenAsOf: LEGACY_AS_OF,
  minRowsRatio: 0.9,
  maxRejectRatio: 0.02,
  build: buildLegacy,
}
