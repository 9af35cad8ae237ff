/**
 * Motus files (docs/data.md), FMCSA's registration system since 2026-05-14: the daily
 * all-with-history (AWH) files give the current state and are reloaded in full; the daily
 * difference files are kept as a change log only. A blank diff row (only the docket filled) is a
 * deletion: it is logged as such and never becomes a record. Headered CSV, USDOT unpadded, dates
 * YYYYMMDD, money in an uncertain unit (detected per value).
 */
import { readCsv, FormatError } from '../ingest/csv.ts'
import * as N from '../ingest/normalize.ts'
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
  insType,
  insertAll,
  isBlankRow,
  loadRows,
  motusMoney,
  rowKey,
  SHARED_INSERTS,
  upper,
  widthProblem,
  type ParsedRow,
} from './tables.ts'

const cols = (s: string): readonly string[] => s.trim().split(/\s+/)

export const MOTUS_COLUMNS = {
  carrier: cols(`DOCKET_NUMBER USDOT_NUMBER RFC_NUMBER OP_AUTH_TYPE OP_AUTH_STATUS MIN_COV_AMOUNT
    CARGO_REQ BOND_REQ BIPD_FILE CARGO_FILE BOND_FILE BUS_UNDELIVERABLE_MAIL MAIL_UNDELIVERABLE_MAIL
    DBA_NAME LEGAL_NAME BUS_STREET_PO BUS_COLONIA BUS_CITY BUS_STATE_CODE BUS_CTRY_CODE BUS_ZIP_CODE
    BUS_TELNO MAIL_STREET_PO MAIL_COLONIA MAIL_CITY MAIL_STATE_CODE MAIL_CTRY_CODE MAIL_ZIP_CODE`),
  insur: cols(`DOCKET_NUMBER USDOT_NUMBER INS_FORM_CODE INS_TYPE_CODE INS_CLASS_CODE MAX_COV_AMOUNT
    UNDERL_LIM_AMOUNT POLICY_NO EFFECTIVE_DATE INSURANCE_COMPANY_NAME TRANS_DATE`),
  insHist: cols(`DOCKET_NUMBER USDOT_NUMBER INS_FORM_CODE FILING_STATUS_REASON INS_TYPE_CODE
    INS_TYPE_IND POLICY_NO INS_TYPE_DESC MIN_COV_AMOUNT INS_CLASS_CODE EFFECTIVE_DATE
    UNDERL_LIM_AMOUNT MAX_COV_AMOUNT CANCL_EFFECTIVE_DATE INSURANCE_COMPANY_NAME`),
  authHist: cols(
    `DOCKET_NUMBER USDOT_NUMBER OP_AUTH_TYPE OP_AUTH_STATUS REASON STATUS_CHANGE_DATE`,
  ),
  revokeSuspend: cols(`DOCKET_NUMBER USDOT_NUMBER OP_AUTH_TYPE ORDER1_SERVE_DATE ORDER1_TYPE_DESC
    ORDER1_EFFECTIVE_DATE`),
  boc3: cols(`docket_number usdot_number co_name street_po city state_code zip_code ctry_code`),
} as const
type MotusKind = keyof typeof MOTUS_COLUMNS

export const MOTUS_FILE_IDS = {
  carrier: 'inys-ebih',
  insur: 'c5y8-a4uz',
  insHist: '3uet-3z4i',
  authHist: 'yu5v-wbh6',
  revokeSuspend: 'wb4f-neki',
  boc3: '6snj-ed7q',
} as const

/** Daily difference files: same columns as their AWH file. */
export const MOTUS_DIFF_IDS = {
  carrier: 'nakq-58th',
  insur: 'x96h-evps',
  insHist: 'xe5s-wca7',
  authHist: 'dm5j-zc6c',
  revokeSuspend: 'e67p-xyd5',
} as const

const TITLES: Record<MotusKind, string> = {
  carrier: 'Carrier',
  insur: 'Insur',
  insHist: 'InsHist',
  authHist: 'AuthHist',
  revokeSuspend: 'RevokeSuspend',
  boc3: 'BOC-3',
}

const files: SourceFileSpec[] = [
  ...(Object.entries(MOTUS_FILE_IDS) as [MotusKind, string][]).map(
    ([kind, id]): SourceFileSpec => ({
      id,
      title: `Motus ${TITLES[kind]} (all with history)`,
      format: 'rows',
      kind: 'awh',
      required: kind !== 'boc3',
    }),
  ),
  ...(Object.entries(MOTUS_DIFF_IDS) as [MotusKind, string][]).map(
    ([kind, id]): SourceFileSpec => ({
      id,
      title: `Motus ${TITLES[kind]} (daily difference)`,
      format: 'rows',
      kind: 'diff',
      required: false,
    }),
  ),
]

const MOTUS_DDL = `
CREATE TABLE authorities (
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER,
  authority TEXT NOT NULL, auth_type TEXT, status TEXT,
  min_cov INTEGER, cargo_req INTEGER, bond_req INTEGER, bipd_file INTEGER, cargo_file INTEGER,
  bond_file INTEGER, bus_undeliverable INTEGER, mail_undeliverable INTEGER, dba_name TEXT, legal_name TEXT,
  bus_street TEXT, bus_city TEXT, bus_state TEXT, bus_country TEXT, bus_zip TEXT, bus_phone TEXT,
  mail_street TEXT, mail_city TEXT, mail_state TEXT, mail_country TEXT, mail_zip TEXT
) STRICT;
CREATE TABLE changes (
  file_id TEXT NOT NULL, source TEXT NOT NULL, as_of TEXT NOT NULL, line INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('deleted', 'changed')),
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER,
  record TEXT
) STRICT;
`

/**
 * Motus money of a policy: a 0 on a cargo/bond/trust filing is "not published" (as in L&I, §3.3),
 * never a fact; BI&PD zeros (no underlying layer) are kept.
 */
function policyMoney(v: string | undefined, type: number | null, ctx: BuildContext): number | null {
  const n = motusMoney(v, type === 1 ? 'bipd' : 'other', ctx)
  return n === 0 && type !== 1 ? null : n
}

/** Row parsers per file kind: return the values after (prefix, number, dot_number) or a reason. */
const PARSERS: Record<Exclude<MotusKind, 'boc3'>, (f: string[], ctx: BuildContext) => ParsedRow> = {
  carrier(f, ctx) {
    const k = rowKey(f)
    if (typeof k === 'string') return k
    return {
      ...k,
      values: [
        authorityKind(f[3]),
        N.text(f[3]),
        N.text(f[4]),
        motusMoney(f[5], 'bipd', ctx),
        flagInt(f[6]),
        flagInt(f[7]),
        motusMoney(f[8], 'bipd', ctx),
        flagInt(f[9]),
        flagInt(f[10]),
        flagInt(f[11]),
        flagInt(f[12]),
        ...contactValues(f, 13, 22),
      ],
    }
  },
  insur(f, ctx) {
    const k = rowKey(f)
    if (typeof k === 'string') return k
    const form = formCode(f[2])
    const type = insType(f[3], form, undefined)
    return {
      ...k,
      values: [
        form,
        type,
        classCode(f[4]),
        N.text(f[9]),
        N.text(f[7]),
        policyMoney(f[6], type, ctx),
        policyMoney(f[5], type, ctx),
        N.date(f[8]),
        null,
        N.date(f[10]),
      ],
    }
  },
  insHist(f, ctx) {
    const k = rowKey(f)
    if (typeof k === 'string') return k
    const form = formCode(f[2])
    const type = insType(f[4], form, f[7])
    return {
      ...k,
      values: [
        form,
        type,
        classCode(f[9]),
        N.text(f[14]),
        N.text(f[6]),
        policyMoney(f[8], type, ctx),
        policyMoney(f[11], type, ctx),
        policyMoney(f[12], type, ctx),
        N.date(f[10]),
        N.date(f[13]),
        upper(f[3]),
        null,
      ],
    }
  },
  authHist(f) {
    const k = rowKey(f)
    if (typeof k === 'string') return k
    const reason = upper(f[4])
    return {
      ...k,
      values: [
        authorityKind(f[2]),
        eventKind(reason),
        reason,
        N.date(f[5]),
        null,
        null,
        null,
        N.text(f[3]),
      ],
    }
  },
  revokeSuspend(f) {
    const k = rowKey(f)
    if (typeof k === 'string') return k
    return {
      ...k,
      values: [authorityKind(f[2]), N.date(f[3]), upper(f[4]), N.date(f[5])],
    }
  },
}

const INSERTS: Record<Exclude<MotusKind, 'boc3'>, string> = {
  carrier: insertAll('authorities', 27),
  insur: SHARED_INSERTS.policies,
  insHist: SHARED_INSERTS.insHist,
  authHist: SHARED_INSERTS.authEvents,
  revokeSuspend: SHARED_INSERTS.revocations,
}

async function loadAwh(ctx: BuildContext, kind: Exclude<MotusKind, 'boc3'>, path: string) {
  const columns = MOTUS_COLUMNS[kind]
  const records = readCsv(path, { header: 'header', columns, signal: ctx.signal })
  await loadRows(ctx, MOTUS_FILE_IDS[kind], records, INSERTS[kind], (f) => {
    const wrong = widthProblem(f, columns.length)
    if (wrong) return wrong
    if (isBlankRow(f)) return BLANK_BASELINE_ROW
    return PARSERS[kind](f, ctx)
  })
}

/**
 * BOC-3 column names are not published by FMCSA: columns are found by name, and a
 * file without a docket column is skipped with a note rather than failing the dataset.
 */
async function loadBoc3(ctx: BuildContext, path: string) {
  const id = MOTUS_FILE_IDS.boc3
  const insert = ctx.db.prepare(SHARED_INSERTS.boc3)
  let idx: Record<string, number> | null = null
  let usable = true
  const at = (f: string[], name: string) => {
    const i = idx?.[name]
    return i === undefined ? undefined : f[i]
  }
  await ctx.insertBatches(
    id,
    readCsv(path, { header: 'none', columns: [], signal: ctx.signal }),
    (r) => {
      if (!usable) return
      if (idx === null) {
        idx = Object.fromEntries(r.fields.map((n, i) => [n.trim().toLowerCase(), i]))
        if (idx.docket_number === undefined) {
          usable = false
          ctx.note('motus.boc3_unknown_header')
        }
        return
      }
      const d = N.docket(at(r.fields, 'docket_number'))
      if (!d) return ctx.reject(id, r.line, 'invalid docket')
      insert.run(
        d.prefix,
        d.number,
        N.usdot(at(r.fields, 'usdot_number') ?? at(r.fields, 'dot_number')),
        N.text(at(r.fields, 'co_name')),
        N.text(at(r.fields, 'city')),
        upper(at(r.fields, 'state_code')),
      )
      ctx.accept(id)
    },
  )
}

/**
 * A daily diff → the change log: a blank row is a deletion of the docket's rows in that file, any
 * other row a change (kept as a column → value object). Current state is never taken from here.
 */
async function loadDiff(ctx: BuildContext, kind: Exclude<MotusKind, 'boc3'>, path: string) {
  const id = MOTUS_DIFF_IDS[kind]
  const columns = MOTUS_COLUMNS[kind]
  const insert = ctx.db.prepare(
    `INSERT INTO changes (file_id, source, as_of, line, kind, prefix, number, dot_number, record)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const parse = PARSERS[kind]
  try {
    const records = readCsv(path, { header: 'header', columns, signal: ctx.signal })
    await ctx.insertBatches(id, records, (r) => {
      const f = r.fields
      const wrong = widthProblem(f, columns.length)
      if (wrong) return ctx.reject(id, r.line, wrong)
      const k = rowKey(f)
      if (typeof k === 'string') return ctx.reject(id, r.line, k)
      if (isBlankRow(f)) {
        insert.run(id, kind, ctx.asOf, r.line, 'deleted', k.d.prefix, k.d.number, k.dot, null)
        ctx.note('motus.diff_deletions')
      } else {
        const p = parse(f, ctx)
        if (typeof p === 'string') return ctx.reject(id, r.line, p)
        const record: Record<string, string> = {}
        columns.forEach((c, i) => {
          const v = (f[i] ?? '').trim()
          if (v !== '') record[c] = v
        })
        insert.run(
          id,
          kind,
          ctx.asOf,
          r.line,
          'changed',
          k.d.prefix,
          k.d.number,
          k.dot,
          JSON.stringify(record),
        )
        ctx.note('motus.diff_changes')
      }
      ctx.accept(id)
    })
  } catch (err) {
    if (!(err instanceof FormatError)) throw err
    // an empty diff proves nothing (deletions are not in it); an unreadable one must not hold back the
    // current state, which comes from the AWH files: it is skipped, and the skip is sampled
    if (/empty/.test(err.message)) ctx.note('motus.diff_empty')
    else {
      ctx.note('motus.diff_unreadable')
      // sampled for `sync status`, but not a rejected row: no row of the file was read
      ctx.stats.rejectSamples.push({ file: id, line: 0, reason: `diff skipped: ${err.message}` })
    }
  }
}

/** The AWH files (all required), the optional BOC-3, then the diffs present into the change log. */
async function loadFiles(ctx: BuildContext): Promise<void> {
  for (const kind of Object.keys(PARSERS) as Exclude<MotusKind, 'boc3'>[]) {
    const id = MOTUS_FILE_IDS[kind]
    const path = ctx.inputs.get(id)
    if (!path) throw new Error(`Motus file ${id} is missing`)
    await loadAwh(ctx, kind, path)
    checkFile(ctx, motusDataset, id, true)
  }
  const boc3 = ctx.inputs.get(MOTUS_FILE_IDS.boc3)
  if (boc3) {
    await loadBoc3(ctx, boc3)
    checkFile(ctx, motusDataset, MOTUS_FILE_IDS.boc3, false)
  }
  for (const kind of Object.keys(MOTUS_DIFF_IDS) as Exclude<MotusKind, 'boc3'>[]) {
    const path = ctx.inputs.get(MOTUS_DIFF_IDS[kind])
    if (!path) continue
    await loadDiff(ctx, kind, path)
    checkFile(ctx, motusDataset, MOTUS_DIFF_IDS[kind], false)
  }
}

const buildMotus = (ctx: BuildContext) =>
  buildTables(
    ctx,
    {
      ddl: MOTUS_DDL,
      authorityTable: 'authorities',
      indexes: `
    CREATE INDEX changes_docket ON changes (prefix, number);
    CREATE INDEX changes_dot ON changes (dot_number) WHERE dot_number IS NOT NULL;`,
    },
    () => loadFiles(ctx),
  )

export const motusDataset: DatasetSpec = {
  name: 'motus',
  title: 'Motus registration, authority and insurance (daily)',
  files,
  schedule: 'daily',
  // file format 2: docket_rows
  format: 2,
  minRowsRatio: 0.8,
  maxRejectRatio: 0.02,
  build: buildMotus,
}
