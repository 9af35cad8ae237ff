/**
 * A check: the record as served, judged by the account's vetting policy, with the contact
 * verification, stored as one signed JSON document in the account's chain. Billed as one lookup
 * through the one charging function. Reading a check answers the stored document unchanged,
 * with its signature and any recorded overrides.
 */
import { randomBytes } from 'node:crypto'
import { isoDate } from '../clock.ts'
import { findCensusByContact, findCensusRow } from '../census/read.ts'
import { overCap } from '../identity/links.ts'
import { McParam, resolveIdentifier, toDocketLookupJson, DotParam } from '../carriers/docket.ts'
import { toMetaJson } from '../carriers/json.ts'
import { notFoundForDot, shapeMetered } from '../carriers/lookup.ts'
import { chargeWith } from '../keys/billing.ts'
import { notFoundFor } from '../carriers/mirror-state.ts'
import type { CompanyRecord } from '../carriers/record.ts'
import { openRecords } from '../carriers/records.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Caller } from '../keys/keys.ts'
import { peekUsage, type Usage } from '../keys/usage.ts'
import { checkBlocklist } from './blocklist-check.ts'
import { checkContact, type ContactSources, type OtherCompanyJson } from './contact.ts'
import { checkEquipment, type EquipmentCheckJson } from './equipment.ts'
import { evaluatePolicy, worst } from './evaluate.ts'
import { appendEntry, ROW_COLUMNS, type LedgerRow } from './ledger.ts'
import { effectivePolicy } from './policy.ts'
import { dataRules, dataSources } from './provenance.ts'
import type {
  CheckDocument,
  CheckJson,
  CheckRequest,
  OverrideDocument,
  OverrideRequest,
  ContactVerificationRef,
} from './schema.ts'
import type { PageInput } from './html.ts'
import { checkReportPdf } from './pdf.ts'
import { currentSigner, publicKeys } from './signing.ts'

/** The equipment answer of a check (null when the request names no unit), in the caller's view. */
function equipmentCheckOf(
  deps: Deps,
  caller: Caller,
  req: CheckRequest,
  dot: number,
  now: Date,
): EquipmentCheckJson | null {
  if (!req.equipment) return null
  const view = deps.datasets.view(caller.mode)
  const census = view.get('census')
  const legalName = (d: number) => (census ? (findCensusRow(census, d)?.legal_name ?? null) : null)
  return checkEquipment(view.get('equipment'), dot, req.equipment, legalName, now.getUTCFullYear())
}

/** The request as a check stores it. */
const requestOf = (req: CheckRequest): CheckDocument['request'] => ({
  dot: req.dot === undefined ? null : String(req.dot),
  mc: req.mc ?? null,
  reference: req.reference ?? null,
  contact: req.contact
    ? { phone: req.contact.phone ?? null, email: req.contact.email ?? null }
    : null,
  watch: req.watch ?? false,
  equipment: req.equipment ?? null,
})

/** The current signing key; a newly made one is logged with its fingerprint, to be pinned. */
export const signerFor = (deps: Deps, now: number) =>
  currentSigner(deps.db, deps.config.paths.dataDir, now, (k) =>
    deps.log.warn(
      { key_id: k.keyId, fingerprint: k.fingerprint, introduced_by: k.introducedBy },
      k.introducedBy
        ? 'new check signing key'
        : 'new first check signing key: publish its fingerprint and pin it with CHECKS_TRUSTED_KEY',
    ),
  )

export const newId = (prefix: 'chk' | 'ovr') => `${prefix}_${randomBytes(12).toString('base64url')}`

/** The other companies' status, read in the caller's view (at most OTHERS_EXAMINED per check). */
function contactSources(deps: Deps, caller: Caller): ContactSources {
  const census = deps.datasets.view(caller.mode).get('census')
  const records = openRecords(deps, caller.mode)
  return {
    companiesWith(kind, values, limit) {
      if (!census) return { total: 0, dots: [], suppressed: false }
      // a value over the link index's cap is no link: counted, its companies not examined
      const over = values.map((v) => overCap(census, kind, v))
      const rest = values.filter((_, i) => over[i] === null)
      const found = findCensusByContact(census, kind, rest, limit)
      const wide = over.reduce<number>((n, c) => n + (c ?? 0), 0)
      return { total: found.total + wide, dots: found.dots, suppressed: wide > 0 }
    },
    statusOf(dot): OtherCompanyJson | null {
      const r = records.recordNow(dot)
      if (!r) return null
      return {
        dot_number: r.dot_number,
        legal_name: r.legal_name,
        usdot_status: r.identity.usdot_status,
        authority_status: r.authority.status,
        revoked: r.authority.revoked_date !== null && r.authority.status !== 'ACTIVE',
        out_of_service: r.identity.out_of_service === true,
      }
    },
  }
}

async function resolve(
  deps: Deps,
  caller: Caller,
  req: CheckRequest,
): Promise<{ record: CompanyRecord; lookup: CheckDocument['lookup'] }> {
  if (req.dot !== undefined) {
    const r = DotParam.safeParse(typeof req.dot === 'number' ? String(req.dot) : req.dot)
    if (!r.success)
      throw new AppError('invalid_dot', r.error.issues[0]?.message ?? 'invalid USDOT number')
    const records = openRecords(deps, caller.mode)
    const record = await records.record(r.data)
    if (!record) throw notFoundFor(deps, records.view, caller, notFoundForDot(r.data).message)
    return { record, lookup: null }
  }
  const mc = req.mc ?? ''
  const id = McParam.safeParse(mc)
  if (!id.success)
    throw new AppError('invalid_docket', id.error.issues[0]?.message ?? 'invalid docket')
  const res = await resolveIdentifier(deps, caller, id.data)
  if (!res.ok) throw notFoundFor(deps, deps.datasets.view(caller.mode), caller, res.message)
  return { record: res.match.record, lookup: toDocketLookupJson(mc, res.match) }
}

/** The account's and the key's names, as they are when the check is made. */
function namesOf(deps: Deps, caller: Caller): { account: string; key: string | null } {
  const r = deps.db
    .prepare(
      'SELECT a.name AS account, k.name AS key FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = ?',
    )
    .get(caller.keyId) as { account: string; key: string | null } | undefined
  return { account: r?.account ?? '', key: r?.key ?? null }
}

/** Who a check or override is made by, beyond the key: a console user, or an unverified name. */
export interface Actor {
  consoleUser?: string
  runBy?: string
}

export interface CreatedCheck {
  check: CheckJson
  usage: Usage
  meta: ReturnType<typeof toMetaJson>
}

/** The check's own findings beside the record: the contact given, its verification, the blocked list. */
function screen(
  deps: Deps,
  caller: Caller,
  record: CompanyRecord,
  served: Pick<CompanyRecord, 'dot_number' | 'identity' | 'contact'>,
  req: CheckRequest,
  named: (ContactVerificationRef & { dot_number: string }) | null,
) {
  const contact = req.contact
  const contactCheck =
    contact && (contact.phone !== undefined || contact.email !== undefined)
      ? checkContact(
          contact,
          {
            dot_number: served.dot_number,
            country: served.identity.country,
            phone: served.contact.phone,
            email: served.contact.email,
          },
          contactSources(deps, caller),
        )
      : null
  // verified only for this company
  const contactVerification: ContactVerificationRef | null = named && {
    id: named.id,
    channel: named.channel,
    sent_to: named.sent_to,
    verified: named.verified && named.dot_number === served.dot_number,
    verified_at: named.verified_at,
  }
  const blocked = checkBlocklist(
    deps.db,
    deps.datasets.view(caller.mode),
    caller.accountId,
    record,
    { contact, vins: (req.equipment ?? []).flatMap((u) => ('vin' in u ? [u.vin] : [])) },
  )
  return { contactCheck, contactVerification, blocked }
}

/** Judges and stores a check (404 and 400 are not billed; 429 past a capped plan's quota). */
export async function createCheck(
  deps: Deps,
  caller: Caller,
  req: CheckRequest,
  requestId: string,
  /** the verification `req.contact_verification_id` names (read by the route); verified only for this company */
  named: (ContactVerificationRef & { dot_number: string }) | null = null,
  actor: Actor = {},
): Promise<CreatedCheck> {
  const { record, lookup } = await resolve(deps, caller, req)
  // the record is shaped with the usage as it stands; the call is charged below, in the same
  // transaction that stores the check, so a call is never billed without its stored check
  const preview = peekUsage(deps.db, caller, deps.clock())
  const { meta: shaped, ...served } = await shapeMetered(
    deps,
    record,
    preview,
    requestId,
    req.crosscheck,
  )
  const now = deps.clock()
  const { contactCheck, contactVerification, blocked } = screen(
    deps,
    caller,
    record,
    served,
    req,
    named,
  )
  const equipmentCheck = equipmentCheckOf(deps, caller, req, record.dotNumber, now)
  const policy = effectivePolicy(deps.db, caller.accountId)
  // the check's own blocks, beside the record's, for the policy's fields
  const own = {
    contact_check: contactCheck,
    contact_verification: contactVerification,
    equipment_check: equipmentCheck,
    blocklist_check: blocked.summary,
  }
  const evaluation = evaluatePolicy(policy.document, { ...served, ...own }, isoDate(now))
  const sources = dataSources(deps, caller.mode, record.dotNumber)
  const appliance = dataRules(caller.mode, shaped.source, sources, policy.document, now)
  const rules = [...evaluation.results, ...appliance]
  const names = namesOf(deps, caller)
  const runBy = actor.consoleUser ?? actor.runBy ?? req.run_by
  const { crosscheck, ...record_ } = served as typeof served & {
    crosscheck?: Record<string, unknown>
  }
  const doc: CheckDocument = {
    type: 'check',
    check_id: newId('chk'),
    created_at: now.toISOString(),
    account_id: caller.accountId,
    account_name: names.account,
    api_key: { id: caller.keyId, mode: caller.mode, name: names.key },
    run_by:
      runBy === undefined
        ? null
        : {
            name: runBy,
            verified: actor.consoleUser !== undefined,
            via: actor.consoleUser !== undefined ? 'console' : 'api',
          },
    request: requestOf(req),
    dot_number: served.dot_number,
    legal_name: served.legal_name,
    verdict: worst(rules.map((r) => r.result)),
    rules,
    policy: {
      id: policy.id,
      scope: policy.scope,
      version: policy.version,
      sha256: policy.sha256,
      document: policy.document,
    },
    trust_version: served.trust.version,
    source: shaped.source,
    data_as_of: shaped.data_as_of,
    contact_check: contactCheck,
    contact_verification: contactVerification,
    equipment_check: equipmentCheck,
    blocklist_hits: blocked.hits,
    lookup,
    record: record_,
    data_sources: sources,
    crosscheck: crosscheck ?? null,
  }
  const signer = signerFor(deps, now.getTime())
  // 429 past a capped plan's quota: nothing is stored, the refusal is counted
  const { value: row, usage } = chargeWith(deps, caller, () =>
    appendEntry(deps.db, signer, {
      kind: 'check',
      chain: caller.mode,
      id: doc.check_id,
      checkId: doc.check_id,
      accountId: caller.accountId,
      apiKeyId: caller.keyId,
      dotNumber: record.dotNumber,
      reference: doc.request.reference,
      verdict: doc.verdict,
      createdAt: now.getTime(),
      document: JSON.stringify(doc),
    }),
  )
  const meta = toMetaJson(record, { usage, requestId, source: shaped.source })
  const check: CheckJson = {
    ...doc,
    signature: signatureOf(row),
    overrides: [],
    effective_verdict: doc.verdict,
  }
  return { check, usage, meta }
}

export const signatureOf = (row: LedgerRow) => ({
  algorithm: 'Ed25519' as const,
  key_id: row.signingKeyId,
  seq: row.seq,
  prev_hash: row.prevHash,
  hash: row.hash,
  value: row.signature,
})

function toCheckJson(row: LedgerRow, overrides: readonly LedgerRow[]): CheckJson {
  const doc = JSON.parse(row.document) as CheckDocument
  const ovr = overrides.map((o) => ({
    ...(JSON.parse(o.document) as OverrideDocument),
    signature: signatureOf(o),
  }))
  return {
    ...doc,
    signature: signatureOf(row),
    overrides: ovr,
    effective_verdict: ovr.at(-1)?.verdict ?? doc.verdict,
  }
}

/** The account's check row, or null (another account's check is not found, like a missing one). */
function checkRow(deps: Deps, accountId: number, id: string): LedgerRow | null {
  return (
    (deps.db
      .prepare(
        `SELECT ${ROW_COLUMNS} FROM checks WHERE id = ? AND kind = 'check' AND account_id = ?`,
      )
      .get(id, accountId) as LedgerRow | undefined) ?? null
  )
}

const overridesOf = (deps: Deps, checkId: string): LedgerRow[] =>
  deps.db
    .prepare(
      `SELECT ${ROW_COLUMNS} FROM checks WHERE check_id = ? AND kind = 'override' ORDER BY seq`,
    )
    .all(checkId) as LedgerRow[]

const notFound = (id: string) => new AppError('not_found', `No check ${id}`)

/** A stored check with its overrides; 404 for another account's or an unknown id. */
export function getCheck(deps: Deps, accountId: number, id: string): CheckJson {
  const row = checkRow(deps, accountId, id)
  if (!row) throw notFound(id)
  return toCheckJson(row, overridesOf(deps, id))
}

/** What a page or report of a stored check renders: the signed text, its signature, its overrides. */
export function checkEvidence(deps: Deps, accountId: number, id: string): PageInput {
  const row = checkRow(deps, accountId, id)
  if (!row) throw notFound(id)
  const key = publicKeys(deps.db).find((k) => k.key_id === row.signingKeyId)
  return {
    doc: JSON.parse(row.document) as CheckDocument,
    document: row.document,
    signature: { ...signatureOf(row), fingerprint: key?.fingerprint ?? '' },
    overrides: overridesOf(deps, id).map((o) => JSON.parse(o.document) as OverrideDocument),
  }
}

/** The PDF report of the account's check (404 for another account's or an unknown id). */
export const checkReport = (deps: Deps, accountId: number, id: string): Buffer =>
  checkReportPdf(checkEvidence(deps, accountId, id))

/** Whether an API key may override: it has the `override` scope. */
const mayOverride = (deps: Deps, keyId: number) =>
  (
    (
      deps.db.prepare('SELECT scopes FROM api_keys WHERE id = ?').get(keyId) as
        { scopes: string } | undefined
    )?.scopes ?? ''
  )
    .split(' ')
    .includes('override')

/** Who overrides: an API key (with the `override` scope) or a signed-in console user. */
export type Overrider = { caller: Caller } | { accountId: number; consoleUser: string }

/**
 * Records an override (its own signed document in the chain); the original verdict stays. An API
 * key needs the `override` scope and the check's mode (a sandbox key never overrides a live check).
 */
export function overrideCheck(
  deps: Deps,
  who: Overrider,
  id: string,
  req: OverrideRequest,
): CheckJson {
  const accountId = 'caller' in who ? who.caller.accountId : who.accountId
  const row = checkRow(deps, accountId, id)
  if (!row) throw notFound(id)
  const checkMode = (JSON.parse(row.document) as CheckDocument).api_key.mode
  let key: OverrideDocument['api_key'] = null
  if ('caller' in who) {
    const c = who.caller
    if (!mayOverride(deps, c.keyId))
      throw new AppError(
        'forbidden',
        'Overrides need a key with the override permission (keys create --scope override) or a signed-in console user',
      )
    if (c.mode !== checkMode)
      throw new AppError(
        'forbidden',
        `A ${c.mode === 'test' ? 'sandbox' : 'live'} key cannot override a ${checkMode === 'test' ? 'sandbox' : 'live'} check`,
      )
    key = { id: c.keyId, mode: c.mode, name: namesOf(deps, c).key }
  }
  const accountName = (
    deps.db.prepare('SELECT name FROM accounts WHERE id = ?').get(accountId) as
      { name: string } | undefined
  )?.name
  const now = deps.clock()
  const doc: OverrideDocument = {
    type: 'override',
    override_id: newId('ovr'),
    check_id: id,
    created_at: now.toISOString(),
    account_id: accountId,
    ...(accountName === undefined ? {} : { account_name: accountName }),
    api_key: key,
    by: 'consoleUser' in who ? who.consoleUser : req.by,
    by_verified: 'consoleUser' in who,
    reason: req.reason,
    verdict: req.verdict,
    original_verdict: row.verdict,
  }
  appendEntry(deps.db, signerFor(deps, now.getTime()), {
    kind: 'override',
    chain: row.chain,
    id: doc.override_id,
    checkId: id,
    accountId,
    apiKeyId: key?.id ?? null,
    dotNumber: row.dotNumber,
    reference: row.reference,
    verdict: req.verdict,
    createdAt: now.getTime(),
    document: JSON.stringify(doc),
  })
  return toCheckJson(row, overridesOf(deps, id))
}
