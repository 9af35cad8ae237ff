/**
 * Tables shared by the `legacy` and `motus` dataset files (L&I and Motus file layouts): both hold
 * current policies, filing history, authority events and revocations in one normalised shape, so
 * the record assembly reads them with the same queries. Values are normalised once, at import:
 * USDOT unpadded, dockets as (prefix, number), money in whole dollars, dates YYYY-MM-DD.
 */
import { VerifyError } from '../ingest/build.ts'
import type { CsvRow } from '../ingest/csv.ts'
import * as N from '../ingest/normalize.ts'
import type { BuildContext, DatasetSpec } from '../ingest/types.ts'
import { buildDocketRows } from './docket-rows.ts'

const SHARED_DDL = `
CREATE TABLE policies (
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER,
  form TEXT, ins_type INTEGER, class_code TEXT, insurer TEXT, policy_no TEXT,
  underlying INTEGER, max_cov INTEGER, effective_date TEXT, cancel_date TEXT, trans_date TEXT
) STRICT;
CREATE TABLE ins_hist (
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER,
  form TEXT, ins_type INTEGER, class_code TEXT, insurer TEXT, policy_no TEXT,
  min_cov INTEGER, underlying INTEGER, max_cov INTEGER, effective_date TEXT, cancel_date TEXT,
  method TEXT, cancel_form TEXT
) STRICT;
CREATE TABLE auth_events (
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER, authority TEXT NOT NULL,
  orig_event TEXT, orig_action TEXT, orig_date TEXT,
  disp_event TEXT, disp_action TEXT, disp_date TEXT, status TEXT
) STRICT;
CREATE TABLE revocations (
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER, authority TEXT NOT NULL,
  serve_date TEXT, type_desc TEXT, effective_date TEXT
) STRICT;
CREATE TABLE boc3 (
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER, agent TEXT, city TEXT, state TEXT
) STRICT;
CREATE TABLE dot_dockets (
  dot_number INTEGER NOT NULL, prefix TEXT NOT NULL, number INTEGER NOT NULL,
  PRIMARY KEY (dot_number, prefix, number)
) STRICT, WITHOUT ROWID;
`

/** Inserts into the shared tables: (prefix, number, dot_number) first, then the parsed values. */
export const SHARED_INSERTS = {
  policies: `INSERT INTO policies (prefix, number, dot_number, form, ins_type, class_code, insurer,
    policy_no, underlying, max_cov, effective_date, cancel_date, trans_date)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  insHist: `INSERT INTO ins_hist (prefix, number, dot_number, form, ins_type, class_code, insurer,
    policy_no, min_cov, underlying, max_cov, effective_date, cancel_date, method, cancel_form)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  authEvents: `INSERT INTO auth_events (prefix, number, dot_number, authority, orig_event,
    orig_action, orig_date, disp_event, disp_action, disp_date, status)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  revocations: `INSERT INTO revocations (prefix, number, dot_number, authority, serve_date,
    type_desc, effective_date) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  boc3: 'INSERT INTO boc3 (prefix, number, dot_number, agent, city, state) VALUES (?, ?, ?, ?, ?, ?)',
} as const

/** `INSERT INTO table VALUES (?, …)` for a table filled in column order. */
export const insertAll = (table: string, columns: number) =>
  `INSERT INTO ${table} VALUES (${Array.from({ length: columns }, () => '?').join(', ')})`

/** The docket and USDOT of a row (the first two fields of every licensing file), or a reason. */
export function rowKey(f: readonly string[]): { d: N.Docket; dot: number | null } | string {
  const d = N.docket(f[0])
  if (!d) return `invalid docket ${JSON.stringify(f[0] ?? '')}`
  return { d, dot: N.usdot(f[1]) }
}

/** One parsed row: the docket, USDOT and the values to insert after them, or a reject reason. */
export type ParsedRow =
  { d: N.Docket; dot: number | null; values: (string | number | null)[] } | string

/** Rejection reasons both datasets give a row of a baseline (non-diff) file. */
export const widthProblem = (f: readonly string[], width: number) =>
  f.length === width ? null : `expected ${width} fields, got ${f.length}`
export const BLANK_BASELINE_ROW = 'blank row (a deletion marker) in a baseline file'

/**
 * Loads a file's records: each parsed row is inserted (docket, USDOT, then its values) and
 * counted, each reason rejected with its line; never a row dropped silently.
 */
export async function loadRows(
  ctx: BuildContext,
  fileId: string,
  records: AsyncIterable<CsvRow>,
  insertSql: string,
  parse: (f: string[]) => ParsedRow,
): Promise<void> {
  const insert = ctx.db.prepare(insertSql)
  await ctx.insertBatches(fileId, records, (r) => {
    const p = parse(r.fields)
    if (typeof p === 'string') return ctx.reject(fileId, r.line, p)
    insert.run(p.d.prefix, p.d.number, p.dot, ...p.values)
    ctx.accept(fileId)
  })
}

/** Indexes are created after loading (much faster than maintaining them row by row). */
const SHARED_INDEXES = `
CREATE INDEX policies_docket ON policies (prefix, number, dot_number);
CREATE INDEX ins_hist_docket ON ins_hist (prefix, number, dot_number);
CREATE INDEX auth_events_docket ON auth_events (prefix, number, dot_number);
CREATE INDEX revocations_docket ON revocations (prefix, number, dot_number);
CREATE INDEX boc3_docket ON boc3 (prefix, number, dot_number);
`

/**
 * The frame of a licensing build: the dataset's own tables and the shared ones, its files (loaded
 * by `loadFiles`), then the indexes and the USDOT → dockets map from its authority table.
 */
export async function buildTables(
  ctx: BuildContext,
  tables: { ddl: string; authorityTable: 'carriers' | 'authorities'; indexes?: string },
  loadFiles: () => Promise<void>,
): Promise<void> {
  ctx.db.exec(tables.ddl + SHARED_DDL)
  await loadFiles()
  ctx.signal.throwIfAborted()
  // timed apart (build phases): at full scale they are most of a build after its load
  ctx.timed('indexes', () => ctx.db.exec(SHARED_INDEXES + (tables.indexes ?? '')))
  ctx.timed('dot_dockets', () => fillDotDockets(ctx, tables.authorityTable))
  ctx.signal.throwIfAborted()
  const t0 = performance.now()
  await buildDocketRows(ctx.db, {
    path: ctx.path,
    authorityTable: tables.authorityTable,
    signal: ctx.signal,
    phase: (name, seconds) => ctx.phase(name, seconds),
  })
  ctx.phase('docket_rows', (performance.now() - t0) / 1000)
}

/**
 * Fills dot_dockets (USDOT → its dockets) from the authority table first, then from the other
 * tables for dockets the authority table does not know. A docket whose rows carry no USDOT
 * (legacy `00000000`) is listed under USDOT 0, so "does this dataset know the docket" is one
 * index probe for every docket.
 *
 * Each table's distinct (prefix, number, USDOT) are read in the order of its docket index, which
 * needs no sort, and only those are probed in the authority table: a DISTINCT over the computed
 * `coalesce(dot_number, 0)` sorted every row and probed the authority table once per row, about
 * twice the work on the legacy history table.
 */
function fillDotDockets(ctx: BuildContext, authorityTable: string): void {
  const distinct = (t: string) =>
    `SELECT coalesce(d.dot_number, 0), d.prefix, d.number
     FROM (SELECT DISTINCT prefix, number, dot_number FROM ${t}) d`
  ctx.db.exec(`
    CREATE INDEX ${authorityTable}_docket ON ${authorityTable} (prefix, number, dot_number);
    INSERT OR IGNORE INTO dot_dockets (dot_number, prefix, number) ${distinct(authorityTable)};`)
  for (const t of ['policies', 'ins_hist', 'auth_events', 'revocations', 'boc3']) {
    ctx.db.exec(`
      INSERT OR IGNORE INTO dot_dockets (dot_number, prefix, number) ${distinct(t)}
        WHERE NOT EXISTS (
          SELECT 1 FROM ${authorityTable} a WHERE a.prefix = d.prefix AND a.number = d.number)`)
  }
  ctx.db.exec('CREATE INDEX dot_dockets_docket ON dot_dockets (prefix, number, dot_number)')
}

/** Insurance type codes (L&I data definitions): 1 BI&PD, 2 cargo, 3 surety bond, 4 trust fund. */
export const INS_TYPE_WORDS: Record<number, string> = {
  1: 'BI&PD',
  2: 'Cargo',
  3: 'Bond',
  4: 'Trust fund',
}
const FORM_TYPES: Record<string, number> = {
  '91': 1,
  '91X': 1,
  '82': 1,
  '34': 2,
  '83': 2,
  '84': 3,
  '85': 4,
}

/** Form code without the `BMC-` prefix, upper case (`BMC-91X` → `91X`); blank → null. */
export function formCode(v: string | undefined): string | null {
  const t = N.text(v)
    ?.toUpperCase()
    .replace(/^BMC\s*-?\s*/, '')
  return t ? t : null
}

/** Insurance type 1–4 from a type code, else the form, else the type description. */
export function insType(
  code: string | undefined,
  form: string | null,
  desc: string | undefined,
): number | null {
  const c = N.int(code)
  if (c !== null && c >= 1 && c <= 4) return c
  if (form && FORM_TYPES[form] !== undefined) return FORM_TYPES[form] ?? null
  const d = (desc ?? '').toUpperCase()
  if (/BIPD|BI&PD|BODILY/.test(d)) return 1
  if (/CARGO/.test(d)) return 2
  if (/TRUST/.test(d)) return 4
  if (/SURETY|BOND/.test(d)) return 3
  return null
}

/** Class code: P primary, E excess, or as filed; `BIPD/Primary` → P. */
export function classCode(v: string | undefined): string | null {
  const t = N.text(v)?.toUpperCase()
  if (!t) return null
  if (/PRIMARY/.test(t)) return 'P'
  if (/EXCESS/.test(t)) return 'E'
  return t.length <= 3 ? t : null
}

/** Policy number reduced to letters and digits, for matching one policy across files. */
export const policyKey = (v: string | null): string | null => {
  if (!v) return null
  const k = v.toUpperCase().replace(/[^A-Z0-9]/g, '')
  return k === '' ? null : k
}

/** Authority kind from a legacy or Motus type text (COMMON, `BROKER`, `Motor Carrier of …`). */
export function authorityKind(v: string | undefined): string {
  const t = (v ?? '').toUpperCase()
  if (/BROKER/.test(t)) return 'broker'
  if (/FORWARDER/.test(t)) return 'forwarder'
  if (/CONTRACT/.test(t)) return 'contract'
  if (/COMMON/.test(t)) return 'common'
  if (/CARRIER|MOTOR|PASSENGER|PROPERTY|HOUSEHOLD/.test(t)) return 'carrier'
  return 'other'
}

export type EventKind =
  'granted' | 'reinstated' | 'revoked' | 'suspended' | 'discontinued' | 'other'

/**
 * Classifies an authority action (legacy AuthHist actions, Motus AuthHist REASON, RevokeSuspend
 * order types) so revocations and reinstatements can be dated and paired.
 */
export function eventKind(v: string | undefined | null): EventKind | null {
  const t = (v ?? '').trim().toUpperCase()
  if (t === '') return null
  if (/DISCONTINUED REVOCATION|REVOCATION DISCONTINUED/.test(t)) return 'discontinued'
  if (/REINSTAT/.test(t)) return 'reinstated'
  if (/GRANT/.test(t)) return 'granted'
  if (/REVOK|REVOCATION/.test(t)) return 'revoked'
  if (/SUSPEN|OUT OF SERVICE/.test(t)) return 'suspended'
  return 'other'
}

/**
 * Filing end reason → the filing status it leaves behind. CANCEL is a real cancellation;
 * TERM/REPL, name changes and transfers are replacements by another filing (L&I data definitions).
 */
export function methodStatus(method: string | null): 'cancelled' | 'replaced' {
  const t = (method ?? '').toUpperCase()
  if (/REPL|NAME|NAMECHG|TRANSFER|^TR$|^NC$/.test(t)) return 'replaced'
  return 'cancelled'
}

/** true when every field but the first two (docket, USDOT) is blank or zeros: a deletion marker. */
export function isBlankRow(fields: readonly string[]): boolean {
  for (let i = 2; i < fields.length; i++) if (!/^[\s0.]*$/.test(fields[i] ?? '')) return false
  return true
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const digit = (s: string, i: number) => {
  const c = s.charCodeAt(i) - 48
  return c >= 0 && c <= 9 ? c : NaN
}

/**
 * A legacy MM/DD/YYYY date as YYYY-MM-DD without regular expressions or Date objects (the hot
 * path of 14 M legacy dates); any other form goes through N.date.
 */
export function legacyDate(v: string | undefined): string | null {
  if (v === undefined) return null
  if (v.length === 10 && v.charCodeAt(2) === 47 && v.charCodeAt(5) === 47) {
    const m = digit(v, 0) * 10 + digit(v, 1)
    const d = digit(v, 3) * 10 + digit(v, 4)
    const y = digit(v, 6) * 1000 + digit(v, 7) * 100 + digit(v, 8) * 10 + digit(v, 9)
    if (!(m >= 1 && m <= 12 && d >= 1 && y >= 1900 && y <= 2200)) return N.date(v)
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
    if (d > (DAYS[m - 1] ?? 0) || (m === 2 && d === 29 && !leap)) return null
    return `${v.slice(6)}-${v.slice(0, 2)}-${v.slice(3, 5)}`
  }
  return N.date(v)
}

/**
 * Where a row parser counts what it noticed (BuildContext `note`): the build's context in this
 * thread, a collector of the row's notes in a parse worker (legacy.ts).
 */
export type Notes = Pick<BuildContext, 'note'>

/** Sentinel for an amount field that holds a date: the row's columns are shifted. */
export const SHIFTED = Symbol('shifted')

/**
 * A legacy amount in thousands → dollars. Blank → null; a date in the slot → SHIFTED (reject the
 * row); other junk → null. A 0 on a non-BI&PD policy means "not published" → null (§3.3).
 */
export function legacyMoney(
  v: string | undefined,
  type: number | null,
  notes: Notes,
): number | null | typeof SHIFTED {
  const t = (v ?? '').trim()
  if (t === '') return null
  if (t.includes('/') || (t.length >= 10 && t.charCodeAt(4) === 45)) return SHIFTED // a date
  const n = N.thousands(t)
  if (n === null) {
    notes.note('legacy.money_unreadable')
    return null
  }
  if (n === 0 && type !== 1) return null
  return n
}

/** Motus money (unit detected per value, §3.3), counting which rule applied. */
export function motusMoney(
  v: string | undefined,
  kind: 'bipd' | 'other',
  ctx: BuildContext,
): number | null {
  const t = (v ?? '').trim().replace(/[$,]/g, '')
  if (t === '') return null
  const n = N.motusMoney(t, kind)
  if (n === null) {
    ctx.note('motus.money_unreadable')
    return null
  }
  const thousands = n !== 0 && n !== Math.round(Number(t))
  if (t.includes('.'))
    ctx.note(thousands ? 'motus.money_thousands_with_cents' : 'motus.money_dollars_with_cents')
  else if (thousands) ctx.note('motus.money_read_as_thousands')
  else ctx.note('motus.money_read_as_dollars')
  return n
}

/** Trimmed text in upper case, or null when blank. */
export const upper = (v: string | undefined) => N.text(v)?.toUpperCase() ?? null

/**
 * The name, address and phone columns of a Carrier row (legacy and Motus alike): DBA and legal
 * name at `names`, then the business address (street, a second line that is not kept, city, state,
 * country, ZIP) and phone, and the mailing address of the same shape at `mail`.
 */
export function contactValues(
  f: readonly string[],
  names: number,
  mail: number,
): (string | null)[] {
  const address = (at: number) => [
    N.text(f[at]),
    N.text(f[at + 2]),
    upper(f[at + 3]),
    upper(f[at + 4]),
    N.zip(f[at + 5]),
  ]
  return [
    N.text(f[names]),
    N.text(f[names + 1]),
    ...address(names + 2),
    N.phoneDigits(f[names + 8]),
    ...address(mail),
  ]
}

/** Y/N flag stored as 1/0 (null when blank or unknown). */
export const flagInt = (v: string | undefined): number | null => {
  const f = N.flag(v)
  return f === null ? null : f ? 1 : 0
}

/** An A/I/N authority letter, or null (counted) when the value is something else. */
export function statLetter(v: string | undefined, notes: Notes): string | null {
  const t = (v ?? '').trim().toUpperCase()
  if (t === 'A' || t === 'I' || t === 'N') return t
  if (t !== '') notes.note('legacy.unknown_status_letter')
  return null
}

const MIN_ROWS_FOR_FILE_RATIO = 1000

/**
 * After loading a file: refuses a required file without rows, and any file whose rejected share is
 * above the dataset's limit (a whole-dataset ratio would hide a broken small file).
 */
export function checkFile(
  ctx: BuildContext,
  spec: Pick<DatasetSpec, 'maxRejectRatio'>,
  fileId: string,
  required: boolean,
): void {
  const s = ctx.stats.files[fileId] ?? { rows: 0, rejects: 0 }
  if (required && s.rows === 0)
    throw new VerifyError(`${fileId}: no valid rows${s.rejects ? ` (${s.rejects} rejected)` : ''}`)
  const total = s.rows + s.rejects
  // small files are judged with the whole dataset (one bad row of ten is not a broken file)
  if (total >= MIN_ROWS_FOR_FILE_RATIO && s.rejects / total > spec.maxRejectRatio)
    throw new VerifyError(
      `${fileId}: ${s.rejects} of ${total} rows rejected (more than ${spec.maxRejectRatio * 100}%)`,
    )
}
