/** The safety block of the record: ratings, inspections, crashes, OOS rates and the seven BASICs. */
import { z } from 'zod'
import { date } from '../fields.ts'

export const BasicJson = z.object({
  code: z.string(),
  name: z.string(),
  measure: z.number().nullable(),
  percentile: z.number().nullable(),
  alert: z.boolean().nullable(),
  roadside_alert: z.boolean().nullable(),
  acute_critical: z.boolean().nullable(),
  inspections_with_violation: z.number().int().nullable(),
  run_date: date,
  public: z.boolean(),
  /** why a value is null: not_public, withheld_fast_act, not_in_sms, or the published text */
  reason: z.string().nullable(),
})
export type BasicJson = z.infer<typeof BasicJson>

export const ElpOosJson = z
  .object({
    count_24m: z.number().int(),
    last_date: date,
  })
  .meta({
    description:
      'English-language-proficiency out-of-service violations (49 CFR 391.11(b)(2)) cited in roadside inspections of the last 24 months, from the SMS Input Violation file; a fact shown beside the score, not a gate. null when that file is not loaded.',
  })
export type ElpOosJson = z.infer<typeof ElpOosJson>

const dqCount = (what: string) =>
  z
    .number()
    .int()
    .meta({ description: `${what}, violations cited in the window` })

export const DriverQualificationJson = z
  .object({
    no_valid_cdl: dqCount('No valid CDL or operator licence (49 CFR 383.23(a)(2), 391.11(b)(5))'),
    disqualified_or_suspended: dqCount(
      'Driving while disqualified, suspended or revoked (49 CFR 383.51(a), 391.15(a))',
    ),
    wrong_class: dqCount('A CMV of a class the CDL does not cover (49 CFR 383.91(a))'),
    medical: dqCount('Medical certificate and examination (49 CFR 391.41, 391.43, 391.45)'),
    english_proficiency: dqCount('English-language proficiency (49 CFR 391.11(b)(2))'),
    window_months: z.literal(24),
    as_of: date.meta({ description: 'as-of date of the SMS Input Violation file counted' }),
  })
  .meta({
    description:
      'Driver-qualification violations cited in roadside inspections of the last 24 months, from the SMS Input Violation file (docs/safety.md lists the codes); review facts, not gates. null when that file is not loaded.',
  })
export type DriverQualificationJson = z.infer<typeof DriverQualificationJson>
/** The counts of `DriverQualificationJson` (its as-of is the dataset's, added by the record). */
export type DriverQualificationCounts = Omit<DriverQualificationJson, 'as_of'>

export const SafetyJson = z.object({
  safety_rating: z.enum(['Satisfactory', 'Conditional', 'Unsatisfactory']).nullable(),
  safety_rating_code: z.enum(['S', 'C', 'U']).nullable(),
  safety_rating_date: date,
  safety_review_date: date,
  safety_review_type: z.string().nullable(),
  crash_total: z.number().int().nullable(),
  fatal_crash: z.number().int().nullable(),
  injury_crash: z.number().int().nullable(),
  towaway_crash: z.number().int().nullable(),
  inspections_total: z.number().int().nullable(),
  driver_inspections: z.number().int().nullable(),
  driver_oos_inspections: z.number().int().nullable(),
  vehicle_inspections: z.number().int().nullable(),
  vehicle_oos_inspections: z.number().int().nullable(),
  hazmat_inspections: z.number().int().nullable(),
  hazmat_oos_inspections: z.number().int().nullable(),
  driver_oos_rate: z.number().nullable(),
  vehicle_oos_rate: z.number().nullable(),
  hazmat_oos_rate: z.number().nullable(),
  driver_oos_rate_national_average: z.number().nullable(),
  vehicle_oos_rate_national_average: z.number().nullable(),
  hazmat_oos_rate_national_average: z.number().nullable(),
  national_average_period: z.string().nullable(),
  iss_score: z.number().nullable(),
  window_start: date,
  window_end: date,
  as_of: date,
  basics: z.array(BasicJson),
  elp_oos_violations: ElpOosJson.nullable(),
  driver_qualification: DriverQualificationJson.nullable(),
})
export type SafetyJson = z.infer<typeof SafetyJson>
