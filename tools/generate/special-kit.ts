/**
 * The special companies' USDOTs (a contract: other tests are written against them, and
 * data/sample/README.md describes each one) and the vocabulary of the SPECIALS table
 * (specials.ts): filings, identities, dockets, insurers.
 */
import type { BaseOptions, DocketSpec } from './build-special.ts'
import { day as d } from './dates.ts'
import type { Address, CancelMethod, FormCode, Policy } from './model.ts'

/** USDOT numbers of the special companies (see data/sample/README.md). */
export const SPECIAL_DOTS = {
  hullCooperative: 344554,
  acmeFreightLines: 1000001,
  blueRidgeLogistics: 1000002,
  summitBrokerage: 1000003,
  pacificOceanForwarding: 1000004,
  greenValleyFarms: 1000005,
  defunctHauling: 1000006,
  mapleLeafTransport: 1000007,
  redlineCarriers: 1000008,
  phoenixTrucking: 1000009,
  starlightCoachLines: 1000010,
  ironhorseExpress: 1000011,
  crashworthyFreight: 1000012,
  rescindedRoutes: 1000013,
  dualModeLogistics: 1000014,
  freshstartCarriers: 1000015,
  roughRoadTransport: 1000016,
  thinlineHaulers: 1000017,
  transportesDelNorte: 1000018,
  tinyTruckCo: 1000019,
  cautionCargo: 1000020,
  nobondBrokers: 1000021,
  staleFilings: 1000022,
  sharedContact1: 1000023,
  sharedContact2: 1000024,
  sharedContact3: 1000025,
  sharedContact4: 1000026,
  sharedContactRevoked: 1000027,
  undeliverableAddress: 1000028,
  insuranceChurn: 1000029,
  cafeExpres: 1000030,
  acmeFreightServices: 1000031,
  acmeLogistics: 1000032,
  acmexTransport: 1000033,
  northAcmeHauling: 1000034,
  acmeFreightLinesOfTexas: 1000035,
  expiredCancelLegacy: 1000036,
  valleyShuttle: 1000037,
} as const

export const SHARED_PHONE = '5555550123'
export const SHARED_EMAIL = 'ops@sharedcontact.example'

/** A filing; `cancel` is [filed, effective, method]. */
export function pol(
  form: FormCode,
  insurer: string,
  policyNo: string,
  effective: string,
  maxCov: number,
  o: { posted?: string; cancel?: [string, string, CancelMethod] } = {},
): Policy {
  const eff = d(effective)
  return {
    form,
    classCode: form === '91X' || form === '91' ? 'P' : '',
    insurer,
    policyNo,
    posted: o.posted ? d(o.posted) : eff - 5,
    effective: eff,
    maxCov,
    underlying: 0,
    branch: '',
    cancel: o.cancel
      ? { filed: d(o.cancel[0]), effective: d(o.cancel[1]), method: o.cancel[2] }
      : null,
  }
}

type Identity = Partial<BaseOptions> & { name: string; address: Partial<Address> }

/** A for-hire interstate property carrier. */
export const carrier = (o: Identity): BaseOptions => ({
  kind: 'carrier',
  classdef: ['AUTHORIZED FOR HIRE'],
  operation: 'A',
  cargo: ['GENFREIGHT'],
  ...o,
})

/** A broker or forwarder: no operation, fleet, drivers or cargo. */
export const office = (o: Identity): BaseOptions => ({
  kind: 'broker',
  classdef: [],
  operation: '',
  fleet: {},
  drivers: 0,
  cargo: [],
  ...o,
})

export const place = (
  street: string,
  city: string,
  state: string,
  zip: string,
  county: string,
) => ({
  street,
  city,
  state,
  zip,
  county,
})

export const INS = {
  gp: 'GREAT PLAINS CASUALTY CO.',
  im: 'INTERSTATE MUTUAL INSURANCE COMPANY',
  ns: 'NORTHSTAR SPECIALTY INSURANCE CO.',
  ha: 'HIGHWAY ASSURANCE CORPORATION',
  lp: 'LONE PINE PROPERTY & CASUALTY CO.',
  bh: 'BLUE HORIZON INSURANCE COMPANY',
  fc: 'FIRST CARRIERS MUTUAL INSURANCE CO.',
  surety: 'AMERICAN FREIGHT SURETY CO.',
  surety2: 'NATIONAL TRANSPORT BOND CO.',
  trust: 'TRANSPORTATION FINANCIAL TRUST INC',
} as const

export const isoMinus = (iso: string, days: number) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)

/** An MC docket of one property authority (common carrier unless `kinds` says otherwise). */
export const mc = (
  number: number,
  granted: string,
  o: Partial<DocketSpec> & { policies: Policy[] },
): DocketSpec => ({
  prefix: 'MC',
  number,
  kinds: ['common'],
  cargo: 'property',
  granted,
  bipdRequired: 750_000,
  ...o,
})

/** A standard active for-hire carrier docket with one current BI&PD filing. */
export const activeMc = (
  number: number,
  granted: string,
  bipd = 1_000_000,
  insurer: string = INS.gp,
) =>
  mc(number, granted, {
    policies: [
      pol('91X', insurer, `${insurer.slice(0, 2)}${number}01`, isoMinus(granted, 5), bipd),
    ],
  })

/** A broker docket (no BI&PD required). */
export const brokerMc = (number: number, granted: string, policies: Policy[], applied?: string) =>
  mc(number, granted, { kinds: ['broker'], bipdRequired: 0, policies, applied })
