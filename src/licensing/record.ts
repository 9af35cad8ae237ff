/**
 * Authority, insurance, bond and revocation facts for one USDOT from the Motus and legacy L&I
 * datasets (FMCSA-DATA.md §4). Motus wins where it has a row; no Motus row is not "no authority".
 */
import type { DataView } from '../db/datasets.ts'
import type { AddressJson, AuthorityJson, InsuranceJson } from '../carriers/schema.ts'

/** Roles the licensing data proves: 'active' authority, 'inactive' (held before), or null (never). */
export interface Roles {
  carrier: 'active' | 'inactive' | null
  broker: 'active' | 'inactive' | null
  forwarder: 'active' | 'inactive' | null
}

export interface LicensingFacts {
  /** all blocks filled except `status` and `allowed_to_operate`, which the assembly derives */
  authority: AuthorityJson
  insurance: InsuranceJson
  /** display forms (`MC-123456`, `FF-1234`), primary first */
  dockets: string[]
  /** `MC-…` to show as mc_number, or null */
  mcNumber: string | null
  roles: Roles
  /** identity fallbacks for entities missing from the census */
  legalName: string | null
  dbaName: string | null
  phone: string | null
  physicalAddress: AddressJson | null
  mailingAddress: AddressJson | null
  mailUndeliverable: boolean | null
  /** YYYY-MM-DD of each dataset that contributed */
  asOf: { motus: string | null; legacy: string | null }
}

/** Licensing facts for a USDOT, or null when neither dataset knows it. */
export function getLicensing(_view: DataView, _dot: number, _today: string): LicensingFacts | null {
  return null
}

/** USDOT numbers holding a docket, most relevant first (Motus, then legacy). */
export function findDotsByDocket(_view: DataView, _prefix: string, _number: number): number[] {
  return []
}
