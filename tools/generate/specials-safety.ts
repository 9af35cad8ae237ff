/**
 * Special companies whose scenario is their safety record: rating, inspections, crashes, OOS
 * orders (see specials.ts).
 */
import type { Special } from './build-special.ts'
import { day as d } from './dates.ts'
import { SPECIAL_DOTS as S, INS, activeMc, carrier, mc, place, pol } from './special-kit.ts'

export const SAFETY_SPECIALS: readonly Special[] = [
  // 1000010 STARLIGHT COACH LINES INC: passenger carrier with public percentiles; HOS alert
  {
    dot: S.starlightCoachLines,
    company: carrier({
      name: 'STARLIGHT COACH LINES INC',
      address: place('5400 LB MCLEOD RD', 'ORLANDO', 'FL', '32811', '095'),
      fleet: { own: { COACH: 10, BUS_16: 2 } },
      drivers: 16,
      addDate: '2009-10-19',
      mcs150Date: '2026-01-12',
      cargo: ['PASSENGERS'],
    }),
    set: {
      passenger: true,
      basics: {
        UNSAFE_DRIV: { pct: '38%', rdAlert: 'N', basicAlert: 'N' },
        HOS_DRIV: { pct: '82%', rdAlert: 'Y', basicAlert: 'Y' },
        DRIV_FIT: { pct: '21%', rdAlert: 'N', basicAlert: 'N' },
        CONTR_SUBST: { pct: '0%', rdAlert: 'N', basicAlert: 'N' },
        VEH_MAINT: { pct: '47%', rdAlert: 'N', basicAlert: 'N' },
      },
    },
    dockets: [
      mc(100010, '2010-01-15', {
        cargo: 'passenger',
        bipdRequired: 5_000_000,
        policies: [
          pol('91X', INS.fc, 'FC-PAX-100010', '2022-01-01', 5_000_000, { posted: '2021-12-20' }),
        ],
      }),
    ],
    safety: {
      inspections: 30,
      violations: 'F U . FF M . F D . M F U M',
    },
  },
  // 1000011 IRONHORSE EXPRESS INC: active out-of-service order
  {
    dot: S.ironhorseExpress,
    company: carrier({
      name: 'IRONHORSE EXPRESS INC',
      address: place('1600 GENESSEE ST', 'KANSAS CITY', 'MO', '64102', '095'),
      fleet: { own: { TRACT: 4, TRAIL: 5 } },
      drivers: 4,
      addDate: '2018-08-13',
      mcs150Date: '2025-08-22',
    }),
    dockets: [activeMc(100011, '2018-10-01')],
    safety: {
      inspections: 6,
      oosOrders: [{ date: d('2026-09-10'), reason: 'NOP', status: 'ACTIVE', rescind: null }],
    },
  },
  // 1000012 CRASHWORTHY FREIGHT LLC: 6 crash reports in the window (1 fatal, 2 injury, 3 tow-away)
  {
    dot: S.crashworthyFreight,
    company: carrier({
      name: 'CRASHWORTHY FREIGHT LLC',
      address: place('3150 DEMOCRAT RD', 'MEMPHIS', 'TN', '38118', '157'),
      fleet: { own: { TRACT: 32, TRAIL: 50 }, trm: { TRACT: 3 } },
      drivers: 38,
      addDate: '2012-01-09',
      mcs150Date: '2026-01-20',
    }),
    dockets: [activeMc(100012, '2012-03-05', 1_000_000, INS.im)],
    safety: {
      inspections: 25,
      violations: 'M . U . M',
    },
    crashes: [
      { date: '2024-06-11' }, // older than 24 months: outside the window
      { date: '2025-01-20' },
      { date: '2025-07-02', injuries: 2 },
      { date: '2025-10-05', vehicles: 2 }, // two of its trucks in one crash: two rows, one report
      { date: '2026-03-14', fatalities: 1, injuries: 1 },
      { date: '2026-05-30' },
      { date: '2026-08-19', injuries: 1 },
    ],
  },
  // 1000013 RESCINDED ROUTES INC: OOS orders, none active
  {
    dot: S.rescindedRoutes,
    company: carrier({
      name: 'RESCINDED ROUTES INC',
      address: place('901 MAIN ST', 'LITTLE ROCK', 'AR', '72201', '119'),
      fleet: { own: { TRACT: 3, TRAIL: 3 } },
      drivers: 3,
      addDate: '2019-02-04',
      mcs150Date: '2025-07-07',
    }),
    dockets: [activeMc(100013, '2019-04-15')],
    safety: {
      inspections: 4,
      oosOrders: [
        { date: d('2023-06-01'), reason: 'NOP', status: 'ACTIVE', rescind: d('2023-07-15') },
        { date: d('2025-02-03'), reason: 'UNFIT', status: 'RESCINDED', rescind: d('2025-03-10') },
      ],
    },
  },
  // 1000016 ROUGH ROAD TRANSPORT INC: Unsatisfactory rating
  {
    dot: S.roughRoadTransport,
    company: carrier({
      name: 'ROUGH ROAD TRANSPORT INC',
      address: place('3300 5TH AVE N', 'BIRMINGHAM', 'AL', '35203', '073'),
      fleet: { own: { TRACT: 7, TRAIL: 9 } },
      drivers: 8,
      addDate: '2017-03-20',
      mcs150Date: '2025-09-02',
      rating: { code: 'U', date: '2025-08-01', reviewDate: '2025-07-22' },
    }),
    set: { acuteCritical: { HOS_DRIV: true, VEH_MAINT: true } },
    dockets: [activeMc(100016, '2017-05-22', 750_000, INS.lp)],
    safety: {
      inspections: 14,
      violations: 'MM F M U MMM FF . M D MM',
    },
  },
  // 1000019 TINY TRUCK CO: one truck, two inspections, unrated
  {
    dot: S.tinyTruckCo,
    company: carrier({
      name: 'TINY TRUCK CO',
      address: place('12 MAIN ST', 'JACKSON', 'MS', '39201', '049'),
      fleet: { own: { TRUCK: 1 } },
      drivers: 1,
      addDate: '2021-03-01',
      mcs150Date: '2025-03-03',
    }),
    dockets: [activeMc(100019, '2021-05-10', 750_000, INS.fc)],
    safety: { inspections: 2 },
  },
  // 1000020 CAUTION CARGO INC: Conditional rating
  {
    dot: S.cautionCargo,
    company: carrier({
      name: 'CAUTION CARGO INC',
      address: place('2200 E PARK AVE', 'SAVANNAH', 'GA', '31404', '051'),
      fleet: { own: { TRACT: 12, TRAIL: 18 } },
      drivers: 13,
      addDate: '2014-02-10',
      mcs150Date: '2025-11-03',
      rating: { code: 'C', date: '2024-11-18', reviewDate: '2024-11-05' },
    }),
    dockets: [activeMc(100020, '2014-04-21', 1_000_000, INS.bh)],
    safety: {
      inspections: 16,
      violations: 'M F . MM U',
    },
  },
  // 1000037 VALLEY SHUTTLE SERVICE LLC: intrastate passenger carrier (SMS "C" result files)
  {
    dot: S.valleyShuttle,
    company: carrier({
      kind: 'intrastate',
      name: 'VALLEY SHUTTLE SERVICE LLC',
      operation: 'C',
      cargo: ['PASSENGERS'],
      address: place('410 N BLACKSTONE AVE', 'FRESNO', 'CA', '93701', '019'),
      fleet: { own: { VAN_9_15: 4, BUS_16: 1 } },
      drivers: 6,
      addDate: '2015-03-09',
      mcs150Date: '2025-09-08',
    }),
    set: { passenger: true, interDrivers: 0, intraDrivers: 6 },
    safety: { inspections: 4, violations: 'F' },
  },
]
