/**
 * Reading an onboarding list: a CSV (papaparse) or an XLSX (read-excel-file) of USDOT or MC
 * numbers with an optional reference column, or the same list as JSON. A file is judged by its
 * bytes, not its name: an XLSX is a zip with a workbook, a CSV is UTF-8 text. Formulas, macros,
 * legacy .xls, binary junk and lists over MAX_ROWS are refused as a whole, before anything is
 * checked or billed; a row that cannot be read is set aside with its reason (the preview).
 */
import { readSheet, type SheetData } from 'read-excel-file/node'
import Papa from 'papaparse'
import { unzipSync } from 'fflate'
import { DotParam, McParam } from '../carriers/docket.ts'
import { AppError } from '../errors.ts'

/** Companies per onboarding. */
export const MAX_ROWS = 10_000
/** Largest accepted upload (a 10,000-row CSV or XLSX is a few hundred KB). */
export const MAX_FILE_BYTES = 5 * 1024 * 1024
/** Largest uncompressed content of an XLSX (a zip bomb is refused before it is inflated). */
export const MAX_XLSX_CONTENT = 50 * 1024 * 1024
/** Longest reference kept (as POST /v1/checks). */
const MAX_REFERENCE = 200

export interface OnboardingInput {
  /** the row as a spreadsheet numbers it (header included), or the JSON item's index + 1 */
  row: number
  kind: 'dot' | 'mc'
  value: string
  reference: string | null
}

export interface RejectedRow {
  row: number
  input: string
  reason: string
}

export interface ParsedList {
  rows: OnboardingInput[]
  rejected: RejectedRow[]
}

type Cell = string | null

const refuse = (message: string) => new AppError('invalid_request', message)
const notWhatItClaims = (message: string) => new AppError('unsupported_media_type', message)

/** Reads an uploaded file (CSV or XLSX, told apart by its bytes). */
export async function parseFile(name: string, bytes: Uint8Array): Promise<ParsedList> {
  if (bytes.length === 0) throw refuse('The file is empty')
  if (bytes.length > MAX_FILE_BYTES)
    throw new AppError(
      'payload_too_large',
      `The file is ${bytes.length} bytes; at most ${MAX_FILE_BYTES} bytes (${MAX_ROWS} rows) are accepted`,
    )
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? ''
  if (ext === 'xlsm' || ext === 'xltm' || ext === 'xlsb')
    throw notWhatItClaims(
      `${name} is a macro-enabled or binary workbook; save it as .xlsx (no macros) or .csv`,
    )
  const zip = bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04
  const ole = bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0
  if (ole)
    throw notWhatItClaims(
      'This is a legacy Excel (.xls) or other OLE file; save it as .xlsx or .csv',
    )
  if (zip) {
    if (ext === 'csv' || ext === 'txt')
      throw notWhatItClaims(`${name} claims to be CSV but is a zip archive (an XLSX?)`)
    return fromCells(await xlsxCells(bytes))
  }
  if (ext === 'xlsx') throw notWhatItClaims(`${name} claims to be XLSX but is not a zip workbook`)
  return fromCells(csvCells(bytes))
}

/** Decodes strict UTF-8 text without NUL bytes, or refuses the file as not CSV. */
function csvCells(bytes: Uint8Array): Cell[][] {
  if (bytes.includes(0)) throw notWhatItClaims('The file is not text: send a CSV or an XLSX')
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw notWhatItClaims('The file is not UTF-8 text: send a CSV (UTF-8) or an XLSX')
  }
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: false })
  return parsed.data.map((r) => r.map((v) => (v.trim() === '' ? null : v)))
}

/** The first sheet's cells, after refusing macros, formulas and oversized content. */
async function xlsxCells(bytes: Uint8Array): Promise<Cell[][]> {
  const names: string[] = []
  let inflated = 0
  let sheets: Record<string, Uint8Array>
  try {
    sheets = unzipSync(bytes, {
      filter: (f) => {
        names.push(f.name)
        inflated += f.originalSize
        if (inflated > MAX_XLSX_CONTENT)
          throw new AppError(
            'payload_too_large',
            `The workbook's content is larger than ${MAX_XLSX_CONTENT} bytes uncompressed`,
          )
        return /^xl\/worksheets\/[^/]+\.xml$/.test(f.name)
      },
    })
  } catch (err) {
    if (err instanceof AppError) throw err
    throw notWhatItClaims('The file is not a readable XLSX workbook (a damaged zip)')
  }
  if (!names.includes('xl/workbook.xml'))
    throw notWhatItClaims('The zip is not an XLSX workbook (no xl/workbook.xml)')
  if (names.some((n) => /vbaProject\.bin$/i.test(n)))
    throw notWhatItClaims('The workbook contains macros; save it as .xlsx without macros or .csv')
  const decoder = new TextDecoder()
  for (const [sheet, xml] of Object.entries(sheets)) {
    const cell = formulaCell(decoder.decode(xml))
    if (cell)
      throw refuse(
        `Cell ${cell} of ${sheet.replace(/^xl\/worksheets\//, '')} holds a formula; paste the values only (Paste Special → Values) and upload again`,
      )
  }
  let data: SheetData
  try {
    data = await readSheet(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), 1)
  } catch {
    throw notWhatItClaims('The workbook could not be read; save it again as .xlsx or .csv')
  }
  return data.map((r) =>
    r.map((v) =>
      v === null || v === undefined
        ? null
        : v instanceof Date
          ? v.toISOString().slice(0, 10)
          : String(v as string | number | boolean).trim() || null,
    ),
  )
}

/** The reference (`B7`) of the first cell with a formula (`<f>`) in a worksheet's XML, or null. */
export function formulaCell(xml: string): string | null {
  const at = /<(?:\w+:)?f[\s>/]/.exec(xml)?.index
  if (at === undefined) return null
  const start = xml.lastIndexOf('<c ', at)
  return /\br="([A-Z]+\d+)"/.exec(xml.slice(start, at))?.[1] ?? 'unknown'
}

const DOT_HEADER = /^(us)?\s*dot(\s*(number|no\.?|#))?$|^usdot/i
const MC_HEADER = /^(mc|docket|mc\s*(number|no\.?|#)|mc\/ff\/mx|mc_number)$/i
const REF_HEADER = /^(ref(erence)?|reference\s*(id|number|no\.?)|your\s*reference|note)$/i

interface Columns {
  dot: number | null
  mc: number | null
  reference: number | null
  /** data starts at this row index */
  first: number
}

/** Finds the columns by their header; without a recognised header, column A then B. */
function columnsOf(cells: Cell[][]): Columns {
  const header = (cells[0] ?? []).map((v) => (v ?? '').trim().replace(/[_-]+/g, ' '))
  const find = (re: RegExp) => {
    const i = header.findIndex((h) => re.test(h))
    return i < 0 ? null : i
  }
  const dot = find(DOT_HEADER)
  const mc = find(MC_HEADER)
  if (dot !== null || mc !== null) return { dot, mc, reference: find(REF_HEADER), first: 1 }
  return { dot: null, mc: 0, reference: 1, first: 0 }
}

const classify = (raw: string): Pick<OnboardingInput, 'kind' | 'value'> | string => {
  const v = raw.trim()
  const dot = DotParam.safeParse(v.replace(/^(us)?dot[\s#:-]*/i, ''))
  if (/^(us)?dot\b|^\d+$/i.test(v) && dot.success) return { kind: 'dot', value: String(dot.data) }
  const mc = McParam.safeParse(v)
  if (mc.success) return { kind: 'mc', value: v }
  return dot.success
    ? { kind: 'dot', value: String(dot.data) }
    : (mc.error.issues[0]?.message ?? 'not a USDOT or MC number')
}

/** Rows of cells → companies, with the rows that cannot be read and why. */
function fromCells(cells: Cell[][]): ParsedList {
  for (const r of cells)
    for (const v of r)
      if (v !== null && v.startsWith('='))
        throw refuse(
          `A cell holds a formula (${v.slice(0, 40)}); export the values only and upload again`,
        )
  const cols = columnsOf(cells)
  const data = cells
    .map((r, i) => ({ r, line: i + 1 }))
    .slice(cols.first)
    .filter(({ r }) => r.some((v) => v !== null))
  if (data.length > MAX_ROWS)
    throw new AppError(
      'payload_too_large',
      `The list has ${data.length} rows; at most ${MAX_ROWS} companies per onboarding (nothing was checked or billed)`,
    )
  if (data.length === 0) throw refuse('The file has no rows of USDOT or MC numbers')
  return build(
    data.map(({ r, line }) => {
      const dot = cols.dot === null ? null : (r[cols.dot] ?? null)
      const mc = cols.mc === null ? null : (r[cols.mc] ?? null)
      const ref = cols.reference === null ? null : (r[cols.reference] ?? null)
      return {
        line,
        dot: dot ?? undefined,
        mc: dot === null ? (mc ?? undefined) : undefined,
        reference: ref,
      }
    }),
    cols.first === 1 ? 'explicit' : 'auto',
  )
}

interface Item {
  /** the row's line in the file (header included), as a spreadsheet numbers it */
  line?: number
  dot?: string | number | undefined
  mc?: string | undefined
  reference?: string | null | undefined
}

/** The JSON form: `{"companies": [{"dot"|"mc", "reference"}]}` (validated by the route's schema). */
export function parseItems(items: readonly Item[]): ParsedList {
  if (items.length > MAX_ROWS)
    throw new AppError(
      'payload_too_large',
      `The list has ${items.length} companies; at most ${MAX_ROWS} per onboarding (nothing was checked or billed)`,
    )
  if (items.length === 0) throw refuse('companies must list at least one company')
  return build(items, 'explicit')
}

function build(items: readonly Item[], how: 'explicit' | 'auto'): ParsedList {
  const rows: OnboardingInput[] = []
  const rejected: RejectedRow[] = []
  const seen = new Map<string, number>()
  items.forEach((item, i) => {
    const row = item.line ?? i + 1
    const given = item.dot !== undefined ? String(item.dot) : (item.mc ?? '')
    const reject = (reason: string) => rejected.push({ row, input: given.slice(0, 100), reason })
    if (given.trim() === '') return reject('no USDOT or MC number')
    const reference = item.reference?.trim().slice(0, MAX_REFERENCE) || null
    let id: Pick<OnboardingInput, 'kind' | 'value'> | string
    // a docket in a USDOT column (`MC-123456`) is read as the docket it is
    if (item.dot !== undefined && how === 'explicit' && !/^\s*(mc|ff|mx)\b/i.test(given)) {
      const r = DotParam.safeParse(given.replace(/^(us)?dot[\s#:-]*/i, ''))
      id = r.success
        ? { kind: 'dot', value: String(r.data) }
        : (r.error.issues[0]?.message ?? 'invalid')
    } else if (item.mc !== undefined && how === 'explicit') {
      const r = McParam.safeParse(given)
      id = r.success
        ? { kind: 'mc', value: given.trim() }
        : (r.error.issues[0]?.message ?? 'invalid')
    } else id = classify(given)
    if (typeof id === 'string') return reject(id)
    const key = `${id.kind}:${id.value.toUpperCase()}`
    const dup = seen.get(key)
    if (dup !== undefined) return reject(`duplicate of row ${dup}`)
    seen.set(key, row)
    rows.push({ row, ...id, reference })
  })
  return { rows, rejected }
}
