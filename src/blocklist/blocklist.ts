/**
 * An account's own blocked list: identifiers it has been burned by (USDOT, MC, phone, e-mail,
 * VIN, officer, address), each with its reason and who added it. Values are stored normalised,
 * so a check matches them however the caller or the census wrote them (`blocklistHits`).
 * Another account's entries are invisible: every read and delete is scoped to the account.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js'
import { z } from 'zod'
import { cached, type Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { checkVin } from './vin.ts'

export const BLOCKLIST_TYPES = [
  'usdot',
  'mc',
  'phone',
  'email',
  'vin',
  'officer',
  'address',
] as const
export type BlocklistType = (typeof BLOCKLIST_TYPES)[number]

export const BlocklistInput = z.strictObject({
  type: z.enum(BLOCKLIST_TYPES),
  value: z.string().trim().min(1, 'value is required').max(300),
  reason: z.string().trim().min(1, 'reason is required').max(1000),
})
export type BlocklistInput = z.infer<typeof BlocklistInput>

/** A blocked-list entry from a form or arguments; a 400 naming the first field at fault. */
export function parseBlocklistInput(input: unknown): BlocklistInput {
  const r = BlocklistInput.safeParse(input)
  if (r.success) return r.data
  const issues = r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))
  const first = issues[0]
  throw new AppError(
    'invalid_request',
    first ? `${first.path}: ${first.message}` : 'invalid entry',
    {
      extra: { issues },
    },
  )
}

export const BlocklistEntryJson = z.object({
  id: z.string(),
  type: z.enum(BLOCKLIST_TYPES),
  value: z
    .string()
    .meta({ description: 'as stored: normalised (E.164 phone, lower-case e-mail, MC123, …)' }),
  reason: z.string(),
  created_at: z.string().meta({ description: 'ISO 8601 UTC' }),
  created_by: z.string().meta({ description: '`key:<key id>`, `user:<e-mail>` or `cli`' }),
})
export type BlocklistEntryJson = z.infer<typeof BlocklistEntryJson>

export const BlocklistJson = z.object({ entries: z.array(BlocklistEntryJson) })

const EMAIL = z.email()

/** A name or address for comparison: upper case, punctuation dropped, spaces collapsed. */
const plain = (v: string): string =>
  v
    .toUpperCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()

/**
 * The stored form of a value of `type`, or why it is not one. Phones are E.164 (libphonenumber-js,
 * North American numbers without a country code), as the contact check compares them.
 */
export function normalizeValue(
  type: BlocklistType,
  value: string,
): { value: string } | { error: string } {
  const v = value.trim()
  switch (type) {
    case 'usdot': {
      const m = /^(?:USDOT)?[\s#:-]*0*(\d{1,8})$/i.exec(v)
      return m && Number(m[1]) > 0
        ? { value: String(Number(m[1])) }
        : { error: 'a USDOT number is 1 to 8 digits' }
    }
    case 'mc': {
      const m = /^(MC|FF|MX)?[\s#:-]*0*(\d{1,8})$/i.exec(v)
      return m && Number(m[2]) > 0
        ? { value: `${(m[1] ?? 'MC').toUpperCase()}${Number(m[2])}` }
        : { error: 'a docket is MC, FF or MX and 1 to 8 digits' }
    }
    case 'phone': {
      const p = parsePhoneNumberFromString(v, 'US')
      return p?.isValid() ? { value: p.number } : { error: 'not a valid phone number' }
    }
    case 'email':
      return EMAIL.safeParse(v).success
        ? { value: v.toLowerCase() }
        : { error: 'not an e-mail address' }
    case 'vin': {
      const r = checkVin(v)
      return 'vin' in r ? { value: r.vin } : r
    }
    case 'officer': {
      const name = plain(v)
      return name.length >= 3
        ? { value: name }
        : { error: 'an officer name has at least 3 letters' }
    }
    case 'address': {
      const a = plain(v)
      return a.length >= 5 ? { value: a } : { error: 'an address has at least 5 characters' }
    }
  }
}

interface EntryRow {
  id: number
  type: BlocklistType
  value: string
  reason: string
  createdAt: number
  createdBy: string
}

const COLS = 'id, type, value, reason, created_at AS createdAt, created_by AS createdBy'

const toJson = (r: EntryRow): BlocklistEntryJson => ({
  id: String(r.id),
  type: r.type,
  value: r.value,
  reason: r.reason,
  created_at: new Date(r.createdAt).toISOString(),
  created_by: r.createdBy,
})

/** Adds an entry; 400 naming `value` when it is not a value of its type, 409 when listed already. */
export function addEntry(
  db: Sqlite,
  accountId: number,
  input: BlocklistInput,
  createdBy: string,
  now: number,
): BlocklistEntryJson {
  const n = normalizeValue(input.type, input.value)
  if ('error' in n)
    throw new AppError('invalid_request', `value: ${n.error}`, {
      extra: { issues: [{ path: 'value', message: n.error }] },
    })
  const existing = db
    .prepare('SELECT id FROM blocklist_entries WHERE account_id = ? AND type = ? AND value = ?')
    .get(accountId, input.type, n.value) as { id: number } | undefined
  if (existing)
    throw new AppError(
      'conflict',
      `${input.type} ${n.value} is on the blocked list already (entry ${existing.id})`,
    )
  const id = Number(
    db
      .prepare(
        `INSERT INTO blocklist_entries (account_id, type, value, reason, created_at, created_by)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(accountId, input.type, n.value, input.reason, now, createdBy).lastInsertRowid,
  )
  return toJson({
    id,
    type: input.type,
    value: n.value,
    reason: input.reason,
    createdAt: now,
    createdBy,
  })
}

/** The account's entries, newest first. */
export function listEntries(db: Sqlite, accountId: number): BlocklistEntryJson[] {
  return (
    db
      .prepare(`SELECT ${COLS} FROM blocklist_entries WHERE account_id = ? ORDER BY id DESC`)
      .all(accountId) as EntryRow[]
  ).map(toJson)
}

/** Removes one of the account's entries; false when it has none with that id. */
export function removeEntry(db: Sqlite, accountId: number, id: number): boolean {
  return (
    db.prepare('DELETE FROM blocklist_entries WHERE id = ? AND account_id = ?').run(id, accountId)
      .changes > 0
  )
}

/** What a check knows of one company, matched against the account's blocked list. */
export interface BlocklistSubject {
  dot?: number | null
  mc?: readonly string[]
  phones?: readonly (string | null)[]
  emails?: readonly (string | null)[]
  vins?: readonly (string | null)[]
  officers?: readonly (string | null)[]
  addresses?: readonly (string | null)[]
}

export type BlocklistVia = 'company' | 'contact' | 'equipment' | 'link'

export interface BlocklistHit {
  entry_id: string
  type: BlocklistType
  value: string
  via: BlocklistVia
  dot_number: string | null
}

const SUBJECT_KEYS: [keyof BlocklistSubject, BlocklistType][] = [
  ['mc', 'mc'],
  ['phones', 'phone'],
  ['emails', 'email'],
  ['vins', 'vin'],
  ['officers', 'officer'],
  ['addresses', 'address'],
]

/**
 * The account's entries that match the subject's identifiers (each normalised as entries are;
 * values that are not valid of their type are skipped). `via` says where the identifiers came
 * from: the company itself, the contact the caller gave, its equipment, or a linked company.
 */
export function blocklistHits(
  db: Sqlite,
  accountId: number,
  subject: BlocklistSubject,
  via: BlocklistVia,
): BlocklistHit[] {
  const wanted: [BlocklistType, string][] = []
  if (subject.dot != null) wanted.push(['usdot', String(subject.dot)])
  for (const [key, type] of SUBJECT_KEYS) {
    const values = subject[key]
    if (!Array.isArray(values)) continue
    for (const raw of values as (string | null)[]) {
      if (!raw) continue
      const n = normalizeValue(type, raw)
      if ('value' in n) wanted.push([type, n.value])
    }
  }
  if (wanted.length === 0) return []
  const stmt = cached(
    db,
    'SELECT id, type, value FROM blocklist_entries WHERE account_id = ? AND type = ? AND value = ?',
  )
  const hits: BlocklistHit[] = []
  const seen = new Set<number>()
  for (const [type, value] of wanted) {
    const r = stmt.get(accountId, type, value) as
      { id: number; type: BlocklistType; value: string } | undefined
    if (!r || seen.has(r.id)) continue
    seen.add(r.id)
    hits.push({
      entry_id: String(r.id),
      type: r.type,
      value: r.value,
      via,
      dot_number: subject.dot == null ? null : String(subject.dot),
    })
  }
  return hits
}
