/**
 * Roadside violation codes by BASIC (49 CFR sections; severity weights as in the SMS methodology,
 * rounded) and the descriptive code lists of the crash file.
 */
import type { BasicKey } from './model.ts'

/** [code, section description, group, severity, can be out-of-service] */
export type ViolationSpec = readonly [string, string, string, number, boolean]

export const VIOLATIONS: Record<BasicKey, readonly ViolationSpec[]> = {
  unsafe: [
    [
      '392.2-SLLS2',
      'State/Local Laws - Speeding 6-10 miles per hour over the speed limit',
      'Speeding Related',
      4,
      false,
    ],
    [
      '392.2-SLLS3',
      'State/Local Laws - Speeding 11-14 miles per hour over the speed limit',
      'Speeding Related',
      7,
      false,
    ],
    ['392.16', 'Failing to use seat belt while operating CMV', 'Seat Belt', 7, false],
    ['392.2C', 'Failure to obey traffic control device', 'Dangerous Driving', 5, false],
    ['392.2LC', 'Improper lane change', 'Dangerous Driving', 5, false],
    ['392.80(a)', 'Driving a CMV while texting', 'Dangerous Driving', 10, false],
  ],
  fatigued: [
    ['395.8(e)', 'False report of drivers record of duty status', 'False Log', 7, true],
    [
      '395.3(a)(2)',
      'Requiring or permitting driver to drive after 14 hour period',
      'Hours',
      7,
      true,
    ],
    ['395.8(a)', 'No record of duty status', 'Incomplete/Wrong Log', 5, true],
    ['395.8(f)(1)', 'Drivers record of duty status not current', 'Incomplete/Wrong Log', 5, false],
    ['395.22(h)', 'Driver failed to maintain ELD instruction sheet', 'EOBR Related', 1, false],
  ],
  fitness: [
    [
      '391.41(a)',
      'Operating a CMV without proof of a medical certificate',
      'Medical Certificate',
      1,
      false,
    ],
    ['383.23(a)(2)', 'Operating a CMV without a valid CDL', 'License-related: High', 8, true],
    ['391.11(b)(2)', 'Non-English speaking driver', 'General Driver Qualification', 4, true],
    ['383.51(a)', 'Driving a CMV while disqualified', 'Disqualified Driver', 10, true],
  ],
  subst: [
    ['392.4(a)', 'Driver uses or is in possession of drugs', 'Drugs', 10, true],
    [
      '392.5(a)(1)',
      'Use or possession of intoxicating beverage within 4 hours of duty',
      'Alcohol',
      10,
      true,
    ],
    ['392.5(a)(2)', 'Possession of intoxicating beverage while on duty', 'Alcohol', 10, true],
  ],
  maint: [
    ['393.9(a)', 'Inoperable required lamp', 'Lighting', 6, false],
    [
      '393.47(e)',
      'Clamp or roto-chamber type brake(s) out of adjustment',
      'Brakes, All Others',
      4,
      false,
    ],
    [
      '396.3(a)(1)',
      'Inspection/repair and maintenance parts and accessories',
      'Vehicle Maintenance',
      4,
      false,
    ],
    ['393.75(c)', 'Tire-other tread depth less than 2/32 of inch', 'Tires', 8, true],
    ['393.48(a)', 'Inoperative/defective brakes', 'Brakes, All Others', 4, true],
    [
      '396.17(c)',
      'Operating a CMV without proof of a periodic inspection',
      'Inspection Reports',
      4,
      false,
    ],
    ['393.100(a)', 'No or improper load securement', 'Cargo-Related', 3, true],
  ],
  hm: [
    [
      '177.817(a)',
      'Carrying hazardous materials without proper shipping papers',
      'HM Documentation',
      5,
      true,
    ],
    ['172.516(c)(6)', 'Placard damaged, deteriorated or obscured', 'HM Placards', 3, false],
    ['177.823(a)', 'Vehicle not marked or placarded as required', 'HM Placards', 5, true],
    ['177.834(a)', 'Package not secured in vehicle', 'HM Load Securement', 7, true],
  ],
}

export const BASIC_DESC: Record<BasicKey, string> = {
  unsafe: 'Unsafe Driving',
  fatigued: 'HOS Compliance',
  fitness: 'Driver Fitness',
  subst: 'Drugs/Alcohol',
  maint: 'Vehicle Maint.',
  hm: 'HM Compliance',
}

export const TRAFFICWAY = [
  'TWO-WAY TRAFFICWAY, NOT DIVIDED',
  'TWO-WAY TRAFFICWAY, DIVIDED, UNPROTECTED MEDIAN',
  'TWO-WAY TRAFFICWAY, DIVIDED, POSITIVE MEDIAN BARRIER',
  'ONE-WAY TRAFFICWAY',
]
export const ACCESS_CONTROL = ['NO CONTROL', 'FULL CONTROL', 'PARTIAL CONTROL']
export const ROAD_SURFACE = ['DRY', 'DRY', 'DRY', 'WET', 'SNOW', 'ICE']
export const WEATHER = [
  'NO ADVERSE CONDITIONS',
  'NO ADVERSE CONDITIONS',
  'NO ADVERSE CONDITIONS',
  'RAIN',
  'SNOW',
  'FOG',
]
export const LIGHT = [
  'DAYLIGHT',
  'DAYLIGHT',
  'DARK - LIGHTED',
  'DARK - NOT LIGHTED',
  'DAWN',
  'DUSK',
]
export const CITATION = ['YES', 'NO', 'NO', 'UNKNOWN']
