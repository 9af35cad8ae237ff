/**
 * The special companies of the bundled sample dataset, one row each (built by build-special.ts).
 * Their USDOTs are a contract: other tests are written against them, and data/sample/README.md
 * describes each one. Everything else in the sample is random filler (sample.ts).
 */
import type { Special } from './build-special.ts'
import { day as d } from './dates.ts'
import {
  SHARED_EMAIL,
  SHARED_PHONE,
  SPECIAL_DOTS as S,
  INS,
  activeMc,
  brokerMc,
  carrier,
  isoMinus,
  mc,
  office,
  place,
  pol,
} from './special-kit.ts'
import { LICENSING_SPECIALS } from './specials-licensing.ts'
import { SAFETY_SPECIALS } from './specials-safety.ts'

/** 1000023..1000027: five companies sharing one phone and e-mail; 1000027 revoked. */
const RING = [
  ['QUICKHAUL CARRIERS LLC', place('1400 W IRVING BLVD', 'DALLAS', 'TX', '75247', '113')],
  ['QUICK HAUL TRANSPORT INC', place('8800 FREEPORT PKWY', 'DALLAS', 'TX', '75063', '113')],
  ['QH FREIGHT SOLUTIONS LLC', place('2310 N STEMMONS FWY', 'DALLAS', 'TX', '75207', '113')],
  ['QUIKHAUL TRUCKING LLC', place('501 ELM ST', 'DALLAS', 'TX', '75202', '113')],
  ['QUICKHAUL EXPRESS INC', place('3030 LBJ FWY', 'DALLAS', 'TX', '75234', '113')],
] as const

const ring = RING.map(([name, address], i): Special => {
  const dot = S.sharedContact1 + i
  const number = 100000 + (dot % 1000)
  const granted = `2025-0${4 + i}-14`
  return {
    dot,
    company: carrier({
      name,
      address,
      fleet: { own: { TRACT: 1 + (i % 2) } },
      drivers: 1 + (i % 2),
      addDate: `2025-0${2 + i}-03`,
      mcs150Date: `2025-0${2 + i}-03`,
      phone: SHARED_PHONE,
      email: SHARED_EMAIL,
    }),
    dockets: [
      dot === S.sharedContactRevoked
        ? mc(number, granted, {
            revoked: { serve: '2025-09-15', effective: '2025-10-15' },
            policies: [
              pol('91X', INS.lp, `LP25${dot}`, isoMinus(granted, 3), 750_000, {
                cancel: ['2025-08-14', '2025-09-14', 'CANCEL'],
              }),
            ],
            // the census still says A for this docket (census docket status is not the authority status)
            censusStatusOverride: 'A',
          })
        : activeMc(number, granted, 750_000, INS.lp),
    ],
    safety: { inspections: i % 3 },
  }
})

/** 1000031..1000035: names close to ACME FREIGHT LINES LLC (search ranking). */
const ACMES = [
  [
    S.acmeFreightServices,
    'ACME FREIGHT SERVICES INC',
    place('100 COMMERCE DR', 'COLUMBUS', 'OH', '43215', '049'),
  ],
  [
    S.acmeLogistics,
    'ACME LOGISTICS LLC',
    place('55 WAREHOUSE WAY', 'CHICAGO', 'IL', '60607', '031'),
  ],
  [
    S.acmexTransport,
    'ACMEX TRANSPORT INC',
    place('2020 AIRPORT BLVD', 'EL PASO', 'TX', '79925', '141'),
  ],
  [
    S.northAcmeHauling,
    'NORTH ACME HAULING LLC',
    place('14 MILL RD', 'FARGO', 'ND', '58102', '017'),
  ],
  [
    S.acmeFreightLinesOfTexas,
    'ACME FREIGHT LINES OF TEXAS LLC',
    place('9000 JENSEN DR', 'HOUSTON', 'TX', '77093', '201'),
  ],
] as const

const acmes = ACMES.map(([dot, name, address]): Special => {
  const number = 100000 + (dot % 1000)
  if (dot === S.acmeLogistics)
    return {
      dot,
      company: office({ name, address, addDate: '2016-04-04', mcs150Date: '2025-04-07' }),
      dockets: [
        brokerMc(number, '2016-06-06', [pol('84', INS.surety2, `NTB${dot}`, '2016-06-01', 75_000)]),
      ],
    }
  return {
    dot,
    company: carrier({
      name,
      dba: dot === S.acmeFreightLinesOfTexas ? 'ACME TEXAS' : undefined,
      address,
      fleet: { own: { TRACT: 2 + (dot % 5), TRAIL: 3 } },
      drivers: 2 + (dot % 5),
      addDate: '2015-08-17',
      mcs150Date: '2025-08-18',
    }),
    dockets: [activeMc(number, '2015-10-05')],
    safety: { inspections: 1 + (dot % 4) },
  }
})

/** Special companies whose scenario is their identity: names, contact, addresses, fleet. */
const CENSUS_SPECIALS: readonly Special[] = [
  // USDOT 344554: built from the real rows in test/fixtures/fmcsa-samples/socrata_rows_usdot344554_*.json
  {
    dot: S.hullCooperative,
    company: carrier({
      name: 'HULL COOPERATIVE ASSOCIATION',
      address: place('805 ELM ST', 'HULL', 'IA', '51239', '167'),
      fleet: { own: { TRUCK: 12, TRACT: 17, TRAIL: 17 }, trm: { TRACT: 3 } },
      drivers: 30,
      addDate: '1989-02-21',
      mcs150Date: '2025-04-29',
      rating: {
        code: 'S',
        date: '2006-01-03',
        reviewDate: '2005-12-19',
        reviewType: '',
        reviewId: '',
      },
      email: 'accounting@hullcoop.com',
      phone: '7124392831',
      cargo: [],
    }),
    set: {
      fax: '7124392831',
      cell: '',
      officer1: '',
      officer2: '',
      businessOrgId: '',
      businessOrgDesc: '',
      dbaName: '',
      mileage: 531_000,
      mileageYear: 2024,
      intraDrivers: 0,
      // the real row: 29 truck units, 32 power units (owned 12 trucks + 17 tractors; 3 leased assumed)
      censusOverrides: { TRUCK_UNITS: '29' },
    },
    dockets: [
      mc(421775, '1989-06-01', {
        kinds: ['contract'],
        real: true,
        policies: [
          pol(
            '91X',
            'NATIONWIDE AGRIBUSINESS INSURANCE CO.',
            'CPP101046A',
            '2015-01-01',
            1_000_000,
            {
              posted: '2015-01-05',
            },
          ),
        ],
      }),
    ],
    inspections: [
      {
        date: '2026-04-22',
        level: 3,
        violations: {},
        state: 'SD',
        reportNumber: '0470000504',
        set: {
          uniqueId: 87647815,
          unit: { type: 'TRUCK TRACTOR', make: '', plate: '', plateState: '', vin: '', decal: '' },
          unit2: null,
        },
      },
    ],
  },
  // 1000001 ACME FREIGHT LINES LLC: the clean, established carrier
  {
    dot: S.acmeFreightLines,
    company: carrier({
      name: 'ACME FREIGHT LINES LLC',
      address: place('4410 COMMERCE ST', 'DALLAS', 'TX', '75226', '113'),
      fleet: { own: { TRACT: 16, TRUCK: 2, TRAIL: 30 }, trm: { TRACT: 2 } },
      drivers: 22,
      addDate: '2009-03-16',
      mcs150Date: '2026-02-10',
      cargo: ['GENFREIGHT', 'BLDGMAT', 'COLDFOOD'],
      rating: { code: 'S', date: '2023-06-12', reviewDate: '2023-06-01' },
    }),
    dockets: [
      mc(100001, '2009-05-20', {
        applied: '2009-04-01',
        policies: [
          pol('91X', INS.gp, 'GP100001A', '2009-05-15', 750_000, {
            cancel: ['2014-04-20', '2014-05-15', 'TERM/REPL'],
          }),
          pol('91X', INS.im, 'IM55310042', '2014-05-15', 1_000_000, {
            cancel: ['2019-04-22', '2019-05-15', 'TERM/REPL'],
          }),
          pol('91X', INS.ns, 'NS2019-88120', '2019-05-15', 1_000_000, { posted: '2019-05-02' }),
          pol('34', INS.ns, 'NS2019-88121', '2019-05-15', 100_000, { posted: '2019-05-02' }),
        ],
      }),
    ],
    safety: {
      inspections: 38,
      old: 2,
      violations: 'M . F . MM . . U . . M',
    },
    crashes: [{ date: '2025-09-18', state: 'OK' }],
  },
  // 1000005 GREEN VALLEY FARMS INC: private carrier, no docket
  {
    dot: S.greenValleyFarms,
    company: {
      kind: 'private',
      name: 'GREEN VALLEY FARMS INC',
      classdef: ['PRIVATE PROPERTY'],
      operation: 'A',
      fleet: { own: { TRUCK: 4, TRACT: 2, TRAIL: 3 } },
      drivers: 6,
      cargo: ['PRODUCE', 'GRAINFEED', 'FARMSUPP'],
      address: place('18250 E AMERICAN AVE', 'FRESNO', 'CA', '93725', '019'),
      addDate: '2004-04-05',
      mcs150Date: '2025-10-20',
    },
    safety: { inspections: 5, violations: 'M' },
  },
  // 1000007 MAPLE LEAF TRANSPORT LTD: Canadian carrier
  {
    dot: S.mapleLeafTransport,
    company: carrier({
      name: 'MAPLE LEAF TRANSPORT LTD',
      address: { ...place('2150 AVIATION WAY', 'MISSISSAUGA', 'ON', 'L5T 2N7', ''), country: 'CA' },
      fleet: { own: { TRACT: 15, TRAIL: 24 } },
      drivers: 17,
      addDate: '2014-06-02',
      mcs150Date: '2025-06-30',
      phone: '9055550107',
    }),
    dockets: [
      mc(100007, '2014-09-08', {
        policies: [
          pol('91X', INS.ns, 'NS-CA-140907', '2014-09-01', 1_000_000, {
            cancel: ['2020-08-10', '2020-09-01', 'TERM/REPL'],
          }),
          pol('91X', INS.ns, 'NS-CA-200901', '2020-09-01', 1_000_000),
          pol('34', INS.ns, 'NS-CA-200902', '2020-09-01', 100_000),
        ],
      }),
    ],
    safety: { inspections: 12, violations: 'M . F' },
  },
  // 1000018 TRANSPORTES DEL NORTE SA DE CV: Mexican carrier (MX docket), inspected in Texas
  {
    dot: S.transportesDelNorte,
    company: carrier({
      name: 'TRANSPORTES DEL NORTE SA DE CV',
      address: {
        street: 'AV CONSTITUCION 1450',
        city: 'MONTERREY',
        state: 'NL',
        zip: '64000',
        country: 'MX',
        colonia: 'CENTRO',
      },
      fleet: { own: { TRACT: 10, TRAIL: 14 } },
      drivers: 12,
      addDate: '2016-09-12',
      mcs150Date: '2025-03-31',
      phone: '8183445018',
    }),
    dockets: [
      mc(100018, '2017-01-09', {
        prefix: 'MX',
        policies: [
          pol('91X', INS.ha, 'HA-MX-100018', '2024-01-01', 750_000, { posted: '2023-12-18' }),
        ],
      }),
    ],
    safety: { inspections: 8, relabelState: 'TX' },
  },
  // 1000022 STALE FILINGS INC: MCS-150 not updated since 2022
  {
    dot: S.staleFilings,
    company: carrier({
      name: 'STALE FILINGS INC',
      address: place('455 TERMINAL RD', 'OMAHA', 'NE', '68107', '055'),
      fleet: { own: { TRACT: 6, TRAIL: 8 } },
      drivers: 6,
      addDate: '2010-05-17',
      mcs150Date: '2022-01-05',
    }),
    set: { mileageYear: 2021 },
    dockets: [activeMc(100022, '2010-07-26', 750_000, INS.im)],
    safety: { inspections: 5 },
  },
  ...ring,
  // 1000028 UNDELIVERABLE ADDRESS LLC: undeliverable physical and mail addresses
  {
    dot: S.undeliverableAddress,
    company: carrier({
      name: 'UNDELIVERABLE ADDRESS LLC',
      address: place('9 NOWHERE LN', 'RENO', 'NV', '89502', '031'),
      fleet: { own: { TRUCK: 2 } },
      drivers: 2,
      addDate: '2020-09-08',
      mcs150Date: '2025-09-15',
    }),
    set: { undeliverablePhy: true, mailUndeliverableDate: d('2026-03-02'), motus: true },
    dockets: [
      mc(100028, '2020-11-02', {
        undeliverableMail: true,
        policies: [
          pol('91X', INS.gp, 'GP201028-28', '2020-10-28', 750_000, {
            cancel: ['2026-07-20', '2026-08-15', 'TERM/REPL'],
          }),
          pol('91X', INS.gp, 'GP260815-28', '2026-08-15', 750_000, { posted: '2026-08-03' }),
        ],
      }),
    ],
    safety: { inspections: 2 },
  },
  // 1000030 CAFÉ EXPRÉS TRANSPORTE LLC: accented name (accent-insensitive search)
  {
    dot: S.cafeExpres,
    company: carrier({
      name: 'CAFÉ EXPRÉS TRANSPORTE LLC',
      address: place('7500 NW 25TH ST', 'MIAMI', 'FL', '33122', '086'),
      fleet: { own: { TRUCK: 3 } },
      drivers: 3,
      addDate: '2019-07-15',
      mcs150Date: '2025-07-21',
      cargo: ['GENFREIGHT', 'COLDFOOD'],
      email: 'dispatch@cafeexpres.example',
    }),
    dockets: [activeMc(100030, '2019-09-03')],
    safety: { inspections: 3 },
  },
  ...acmes,
]

/** Every special company, in USDOT order. */
export const SPECIALS: readonly Special[] = [
  ...CENSUS_SPECIALS,
  ...LICENSING_SPECIALS,
  ...SAFETY_SPECIALS,
].sort((a, b) => a.dot - b.dot)
