/** Special companies whose scenario is their operating authority or insurance (see specials.ts). */
import type { Special } from './build-special.ts'
import {
  SPECIAL_DOTS as S,
  INS,
  activeMc,
  brokerMc,
  carrier,
  mc,
  office,
  place,
  pol,
} from './special-kit.ts'

export const LICENSING_SPECIALS: readonly Special[] = [
  // 1000002 BLUE RIDGE LOGISTICS INC: broker only; bond replaced after the cutover (Motus)
  {
    dot: S.blueRidgeLogistics,
    company: office({
      name: 'BLUE RIDGE LOGISTICS INC',
      address: place('200 S TRYON ST STE 1400', 'CHARLOTTE', 'NC', '28202', '119'),
      addDate: '2015-06-15',
      mcs150Date: '2025-12-01',
    }),
    set: { motus: true },
    dockets: [
      brokerMc(
        100002,
        '2015-08-03',
        [
          pol('84', INS.surety, 'AFS-84-220193', '2015-07-25', 75_000, {
            posted: '2015-07-20',
            cancel: ['2026-06-10', '2026-07-01', 'TERM/REPL'],
          }),
          pol('84', INS.surety2, 'NTB0784511', '2026-07-01', 75_000, { posted: '2026-06-12' }),
        ],
        '2015-06-20',
      ),
    ],
  },
  // 1000003 SUMMIT BROKERAGE GROUP LLC: broker with a BMC-85 trust fund (legacy only: no amount)
  {
    dot: S.summitBrokerage,
    company: office({
      name: 'SUMMIT BROKERAGE GROUP LLC',
      address: place('1801 CALIFORNIA ST STE 2400', 'DENVER', 'CO', '80202', '031'),
      addDate: '2017-11-20',
      mcs150Date: '2025-11-14',
    }),
    dockets: [
      brokerMc(100003, '2018-02-12', [
        pol('85', INS.trust, 'TFT-2018-00457', '2018-02-01', 75_000, { posted: '2018-01-29' }),
      ]),
    ],
  },
  // 1000004 PACIFIC OCEAN FORWARDING INC: freight forwarder (FF docket)
  {
    dot: S.pacificOceanForwarding,
    company: office({
      kind: 'forwarder',
      name: 'PACIFIC OCEAN FORWARDING INC',
      address: place('2500 HARBOR AVE', 'LONG BEACH', 'CA', '90813', '037'),
      addDate: '2012-07-09',
      mcs150Date: '2025-09-30',
    }),
    dockets: [
      mc(100004, '2012-10-01', {
        prefix: 'FF',
        bipdRequired: 0,
        policies: [pol('84', INS.surety, 'AFS-84-120877', '2012-09-20', 75_000)],
      }),
    ],
  },
  // 1000006 DEFUNCT HAULING CO: inactive; insurance cancelled, authority revoked in 2024
  {
    dot: S.defunctHauling,
    company: carrier({
      name: 'DEFUNCT HAULING CO',
      address: place('77 RAILROAD AVE', 'TOLEDO', 'OH', '43604', '095'),
      fleet: { own: { TRACT: 3, TRAIL: 4 } },
      drivers: 3,
      addDate: '2011-02-14',
      mcs150Date: '2023-08-01',
    }),
    set: { status: 'I' },
    dockets: [
      mc(100006, '2011-04-11', {
        revoked: { serve: '2024-05-20', effective: '2024-06-19' },
        policies: [
          pol('91X', INS.gp, 'GP7712004', '2011-04-01', 750_000, {
            cancel: ['2017-03-10', '2017-04-01', 'TERM/REPL'],
          }),
          pol('91X', INS.bh, 'BH17-004410', '2017-04-01', 750_000, {
            cancel: ['2024-04-19', '2024-05-19', 'CANCEL'],
          }),
        ],
      }),
    ],
  },
  // 1000008 REDLINE CARRIERS INC: BI&PD cancellation pending (Motus InsHist, effective 2027-01-15)
  {
    dot: S.redlineCarriers,
    company: carrier({
      name: 'REDLINE CARRIERS INC',
      address: place('3900 INDUSTRIAL BLVD', 'JOLIET', 'IL', '60432', '197'),
      fleet: { own: { TRACT: 8, TRAIL: 12 } },
      drivers: 9,
      addDate: '2015-12-07',
      mcs150Date: '2025-12-15',
    }),
    set: { motus: true },
    dockets: [
      mc(100008, '2016-03-01', {
        policies: [
          pol('91X', INS.im, 'IM60300812', '2016-02-25', 750_000, {
            cancel: ['2025-02-05', '2025-03-01', 'TERM/REPL'],
          }),
          pol('91X', INS.ha, 'HA250301008', '2025-03-01', 1_000_000, {
            posted: '2025-02-20',
            cancel: ['2026-10-16', '2027-01-15', 'CANCEL'],
          }),
        ],
      }),
    ],
    safety: { inspections: 9 },
  },
  // 1000009 PHOENIX TRUCKING LLC: revoked 2023-03-15 (insurance), reinstated 2023-05-01
  {
    dot: S.phoenixTrucking,
    company: carrier({
      name: 'PHOENIX TRUCKING LLC',
      address: place('2727 W BUCKEYE RD', 'PHOENIX', 'AZ', '85009', '013'),
      fleet: { own: { TRACT: 5, TRAIL: 6 } },
      drivers: 5,
      addDate: '2016-05-02',
      mcs150Date: '2025-05-19',
    }),
    dockets: [
      mc(100009, '2016-07-11', {
        cycles: [{ serve: '2023-02-13', effective: '2023-03-15', reinstated: '2023-05-01' }],
        policies: [
          pol('91X', INS.lp, 'LP160701-09', '2016-07-01', 750_000, {
            cancel: ['2023-01-12', '2023-02-12', 'CANCEL'],
          }),
          pol('91X', INS.fc, 'FC23042809', '2023-04-28', 750_000, { posted: '2023-04-28' }),
        ],
      }),
    ],
    safety: { inspections: 7, violations: '. U' },
  },
  // 1000014 DUAL MODE LOGISTICS LLC: carrier and broker authority on one MC; Motus rows
  {
    dot: S.dualModeLogistics,
    company: carrier({
      name: 'DUAL MODE LOGISTICS LLC',
      address: place('7101 E 21ST ST', 'INDIANAPOLIS', 'IN', '46219', '097'),
      fleet: { own: { TRACT: 10, TRAIL: 14 } },
      drivers: 11,
      addDate: '2013-01-14',
      mcs150Date: '2026-04-06',
    }),
    set: { motus: true },
    dockets: [
      mc(100014, '2013-04-01', {
        kinds: ['common', 'broker'],
        policies: [
          pol('91X', INS.gp, 'GP130325-14', '2013-03-25', 1_000_000, {
            cancel: ['2026-07-10', '2026-08-01', 'TERM/REPL'],
          }),
          pol('84', INS.surety, 'AFS-84-130325', '2013-03-25', 75_000),
          pol('91X', INS.ha, 'HA260801014', '2026-08-01', 1_000_000, { posted: '2026-07-20' }),
        ],
      }),
    ],
    safety: { inspections: 10 },
  },
  // 1000015 FRESHSTART CARRIERS LLC: registered after the cutover: Motus rows only
  {
    dot: S.freshstartCarriers,
    company: carrier({
      kind: 'new',
      name: 'FRESHSTART CARRIERS LLC',
      address: place('48 DEPOT ST', 'NASHVILLE', 'TN', '37203', '037'),
      fleet: { own: { TRACT: 2, TRAIL: 2 } },
      drivers: 2,
      addDate: '2026-09-01',
      mcs150Date: '2026-09-01',
    }),
    set: { motus: true, legacy: false, mileage: 0 },
    dockets: [
      mc(1700015, '2026-10-20', {
        applied: '2026-09-17',
        policies: [
          pol('91X', INS.bh, 'BH26101500015', '2026-10-15', 750_000, { posted: '2026-10-14' }),
        ],
      }),
    ],
    safety: { inspections: 0 },
  },
  // 1000017 THINLINE HAULERS INC: BI&PD on file ($300k) below the required $750k
  {
    dot: S.thinlineHaulers,
    company: carrier({
      name: 'THINLINE HAULERS INC',
      address: place('640 W 2100 S', 'SALT LAKE CITY', 'UT', '84119', '035'),
      fleet: { own: { TRUCK: 3 } },
      drivers: 3,
      addDate: '2020-06-15',
      mcs150Date: '2025-06-20',
    }),
    dockets: [activeMc(100017, '2020-08-24', 300_000, INS.lp)],
    safety: { inspections: 3 },
  },
  // 1000021 NOBOND BROKERS LLC: broker authority active but no bond or trust on file
  {
    dot: S.nobondBrokers,
    company: office({
      name: 'NOBOND BROKERS LLC',
      address: place('100 N BISCAYNE BLVD STE 900', 'MIAMI', 'FL', '33132', '086'),
      addDate: '2019-10-07',
      mcs150Date: '2025-10-10',
    }),
    dockets: [brokerMc(100021, '2020-01-06', [])],
  },
  // 1000029 INSURANCE CHURN TRUCKING: five BI&PD policies ended in the last 12 months
  {
    dot: S.insuranceChurn,
    company: carrier({
      name: 'INSURANCE CHURN TRUCKING',
      address: place('615 RIVER RD', 'LOUISVILLE', 'KY', '40206', '111'),
      fleet: { own: { TRACT: 4, TRAIL: 4 } },
      drivers: 4,
      addDate: '2018-12-03',
      mcs150Date: '2025-12-08',
    }),
    set: { motus: true },
    dockets: [
      mc(100029, '2019-03-01', {
        policies: [
          pol('91X', INS.gp, 'GP190225-29', '2019-02-25', 750_000, {
            cancel: ['2025-02-10', '2025-03-01', 'TERM/REPL'],
          }),
          pol('91X', INS.bh, 'BH250301-29', '2025-03-01', 750_000, {
            cancel: ['2025-11-01', '2025-12-01', 'CANCEL'],
          }),
          pol('91X', INS.lp, 'LP251201-29', '2025-12-01', 750_000, {
            cancel: ['2026-01-20', '2026-02-01', 'TERM/REPL'],
          }),
          pol('91X', INS.fc, 'FC260201-29', '2026-02-01', 750_000, {
            cancel: ['2026-03-01', '2026-04-01', 'CANCEL'],
          }),
          pol('91X', INS.ha, 'HA260401-29', '2026-04-01', 750_000, {
            cancel: ['2026-06-01', '2026-06-15', 'TERM/REPL'],
          }),
          pol('91X', INS.im, 'IM260615-29', '2026-06-15', 750_000, {
            cancel: ['2026-08-01', '2026-09-01', 'CANCEL'],
          }),
          pol('91X', INS.ns, 'NS260901-29', '2026-09-01', 750_000, { posted: '2026-08-25' }),
        ],
      }),
    ],
    safety: { inspections: 6 },
  },
  // 1000036 EXPIRED CANCEL LEGACY INC: legacy cancellation (07/16/2026) now in the past
  {
    dot: S.expiredCancelLegacy,
    company: carrier({
      name: 'EXPIRED CANCEL LEGACY INC',
      address: place('300 N LAKE ST', 'SPOKANE', 'WA', '99201', '063'),
      fleet: { own: { TRUCK: 2 } },
      drivers: 2,
      addDate: '2018-04-02',
      mcs150Date: '2025-04-14',
    }),
    dockets: [
      mc(100036, '2018-06-04', {
        policies: [
          pol('91X', INS.lp, 'LP180601-36', '2018-06-01', 1_000_000, {
            cancel: ['2026-05-01', '2026-07-16', 'CANCEL'],
          }),
        ],
      }),
    ],
    safety: { inspections: 2 },
  },
]
