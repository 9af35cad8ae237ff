import type { Usage } from '../keys/usage.ts'
import type { CompanyRecord } from './record.ts'
import type { CarrierJson, MetaJson } from './schema.ts'
import type { CrosscheckJson } from '../crosscheck/schema.ts'

export interface MetaInput {
  usage: Usage | null
  requestId: string
  source: 'mirror' | 'sample' | 'live'
}

export function toMetaJson(r: Pick<CompanyRecord, 'dataAsOf'>, m: MetaInput): MetaJson {
  return {
    quota_used: m.usage?.used ?? null,
    quota_limit: m.usage?.limit ?? null,
    plan: m.usage?.plan ?? null,
    source: m.source,
    data_as_of: r.dataAsOf,
    billed: m.usage?.billed ?? false,
    request_id: m.requestId,
  }
}

/**
 * The record as the API returns it: identity keys at the top level (as in the reference's
 * example) and again in `identity`, every block present, null where nothing is on file.
 */
export function toCarrierJson(
  r: CompanyRecord,
  m: MetaInput,
  crosscheck?: CrosscheckJson,
): CarrierJson {
  return {
    dot_number: r.dot_number,
    mc_number: r.mc_number,
    legal_name: r.legal_name,
    dba_name: r.dba_name,
    entity_type: r.entity_type,
    identity: r.identity,
    contact: r.contact,
    authority: r.authority,
    insurance: r.insurance,
    fleet: r.fleet,
    safety: r.safety,
    trust: r.trust,
    reviews: r.reviews,
    ...(crosscheck ? { crosscheck } : {}),
    meta: toMetaJson(r, m),
  }
}
