/** Field formats shared by the row writers (rows*.ts), and where the records go. */
import { type FileKey } from './columns.ts'
import { q, qn } from './csv.ts'
import { US_PLACES } from './vocab.ts'

/** Where each file's records go; a missing key means the file is not being written. */
export type Emit = Partial<Record<FileKey, (record: string) => void>>

export const pad8 = (dot: number) => String(dot).padStart(8, '0')
/** Every field quoted (legacy L&I text layout). */
export function quoteAll(fields: readonly string[]): string {
  let s = q(fields[0] ?? '')
  for (let i = 1; i < fields.length; i++) s += `,${q(fields[i] ?? '')}`
  return s
}
/** Fields quoted where needed (Socrata rows.csv layout). */
export function quoteNeeded(fields: readonly string[]): string {
  let s = qn(fields[0] ?? '')
  for (let i = 1; i < fields.length; i++) s += `,${qn(fields[i] ?? '')}`
  return s
}
export const yn = (b: boolean) => (b ? 'Y' : 'N')
export const tf = (b: boolean) => (b ? 'true' : 'false')
/** Legacy Carrier amounts: thousands, zero-filled to 5 (`01000` = $1 M). */
export const k5 = (dollars: number) => String(Math.round(dollars / 1000)).padStart(5, '0')
/** Legacy insurance amounts: thousands, unpadded. */
export const k = (dollars: number) => String(Math.round(dollars / 1000))
/** Motus amounts: dollars with cents. */
export const money = (dollars: number) => dollars.toFixed(2)
const SMALL = Array.from({ length: 1000 }, (_, i) => String(i))
export const num = (n: number) =>
  n >= 0 && n < 1000 && Number.isInteger(n) ? (SMALL[n] as string) : String(n)
/** `(800) 201-8453`, as the SMS census writes phones. */
export const phoneDisplay = (p: string) =>
  p.length === 10 ? `(${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}` : p

export const REGION_BY_STATE = new Map(US_PLACES.map((p) => [p[1], p[5]]))
export const NATIONALITY = { US: 'U', CA: 'C', MX: 'M' } as const
