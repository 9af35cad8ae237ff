/**
 * Reads of the equipment dataset: the sightings of one VIN or plate (GET /v1/equipment) and the
 * equipment facts of one USDOT (the record's `equipment` block, the pickup check). Each is a few
 * primary-key reads of the tables equipment.ts builds.
 */
import { hasSchemaObject, type ActiveDataset } from '../db/datasets.ts'
import { listsDot } from '../db/dot-set.ts'
import { dayToIso } from '../dates.ts'
import type { EquipmentAnswerJson } from './schema.ts'
import { SHARED_WIDELY_ABOVE } from './equipment.ts'
import { modelYear, normalizeCarrierName, vinStatus } from './vin.ts'

export interface EquipmentWindow {
  from: string
  to: string
}

export interface PlateRef {
  plate: string
  state: string
}

/** One USDOT under which a VIN or plate was seen in the window. */
export interface CarrierSighting {
  dot: number
  firstSeen: string
  lastSeen: string
  /** distinct inspections (one inspection is one sighting, whichever files name it) */
  inspections: number
  /** distinct crash reports */
  crashes: number
  /** for a VIN: the plates it carried under this USDOT; for a plate: the plate itself */
  plates: PlateRef[]
  /** for a plate: the VINs seen with it under this USDOT, latest first; for a VIN: [] */
  vins: string[]
  unitType: string | null
  make: string | null
}

export interface Sightings {
  /** the VIN asked for, or for a plate the VIN seen with it most recently (null when none) */
  vin: string | null
  vinValid: boolean | null
  /** the plate asked for (null for a VIN query) */
  plate: PlateRef | null
  /** newest last sighting first */
  carriers: CarrierSighting[]
  /** seen under more than SHARED_WIDELY_ABOVE USDOT numbers: never a link on its own */
  sharedWidely: boolean
  window: EquipmentWindow
}

export type SightingQuery = { vin: string } | { plate: string; state: string }

/** What a file's equipment_meta says that reads use: its window and the cap of `vins_shared`. */
interface EquipmentMeta {
  window: EquipmentWindow | null
  sharedAbove: number | null
}

/** equipment_meta per open dataset version (a version's meta never changes): read once. */
const metas = new WeakMap<ActiveDataset, EquipmentMeta>()

function metaOf(ds: ActiveDataset): EquipmentMeta {
  let meta = metas.get(ds)
  if (!meta) {
    const kv = new Map(
      ds.stmt('SELECT key, value FROM equipment_meta').raw().all() as [string, string][],
    )
    const from = kv.get('window_start')
    const to = kv.get('window_end')
    const above = kv.get('shared_widely_above')
    meta = {
      window: from && to ? { from, to } : null,
      sharedAbove: above === undefined ? null : Number(above),
    }
    metas.set(ds, meta)
  }
  return meta
}

/** The dataset's window (equipment_meta), or null for a file without it. */
export const equipmentWindow = (ds: ActiveDataset): EquipmentWindow | null => metaOf(ds).window

/**
 * A row of vin_carriers or plate_carriers as `CARRIER_COLUMNS` reads it (raw values: no row
 * object is built): USDOT, first and last day, inspections, crashes, unit type, make, the plates
 * (vin_carriers) or VINs (plate_carriers), and how many USDOT numbers the unit was seen under
 * (the same on each of its rows).
 */
type CarrierValues = [
  dot: number,
  firstDay: number,
  lastDay: number,
  inspections: number,
  crashes: number,
  unitType: string | null,
  make: string | null,
  list: string | null,
  carriers: number,
]

const CARRIER_COLUMNS = 'dot, first_day, last_day, inspections, crashes, unit_type, make'
const VIN_ROWS = `SELECT ${CARRIER_COLUMNS}, plates, carriers FROM vin_carriers WHERE vin = ?`
const PLATE_ROWS = `SELECT ${CARRIER_COLUMNS}, vins, carriers FROM plate_carriers
  WHERE state = ? AND plate = ?`

/** Newest last sighting first, then most inspections, then by USDOT. */
const bySighting = (a: CarrierValues, b: CarrierValues) => b[2] - a[2] || b[3] - a[3] || a[0] - b[0]

const sightingOf = (r: CarrierValues, plates: PlateRef[], vins: string[]): CarrierSighting => ({
  dot: r[0],
  firstSeen: dayToIso(r[1]),
  lastSeen: dayToIso(r[2]),
  inspections: r[3],
  crashes: r[4],
  plates,
  vins,
  unitType: r[5],
  make: r[6],
})

/**
 * Every USDOT a normalised VIN or plate was seen under in the window, newest first, or null when
 * it was never seen. Placeholder VINs are never stored, so they are never found.
 */
export function sightingsOf(ds: ActiveDataset, q: SightingQuery): Sightings | null {
  const window = equipmentWindow(ds)
  if (!window) return null
  if ('vin' in q) {
    const rows = ds.stmt(VIN_ROWS).raw().all(q.vin) as CarrierValues[]
    const head = rows[0]
    if (!head) return null
    if (rows.length > 1) rows.sort(bySighting)
    return {
      vin: q.vin,
      vinValid: vinStatus(q.vin) === 'valid',
      plate: null,
      carriers: rows.map((r) => sightingOf(r, platesOf(r[7]), [])),
      sharedWidely: head[8] > SHARED_WIDELY_ABOVE,
      window,
    }
  }
  const rows = ds.stmt(PLATE_ROWS).raw().all(q.state, q.plate) as CarrierValues[]
  const head = rows[0]
  if (!head) return null
  // the VINs seen with the plate, latest first (then by VIN), each under its USDOT
  const vins = rows
    .flatMap((r) =>
      (r[7] ?? '').split(',').flatMap((e) => {
        const colon = e.lastIndexOf(':')
        return colon < 0
          ? []
          : [{ dot: r[0], vin: e.slice(0, colon), day: Number(e.slice(colon + 1)) }]
      }),
    )
    .sort((a, b) => b.day - a.day || (a.vin < b.vin ? -1 : a.vin > b.vin ? 1 : 0))
  const plate = { plate: q.plate, state: q.state }
  const latestVin = vins[0]?.vin ?? null
  return {
    vin: latestVin,
    vinValid: latestVin === null ? null : vinStatus(latestVin) === 'valid',
    plate,
    carriers: rows.sort(bySighting).map((r) =>
      sightingOf(
        r,
        [plate],
        vins.filter((v) => v.dot === r[0]).map((v) => v.vin),
      ),
    ),
    sharedWidely: head[8] > SHARED_WIDELY_ABOVE,
    window,
  }
}

/** The plates of a vin_carriers row: `ST|PLATE` entries, by state then plate. */
const platesOf = (text: string | null): PlateRef[] =>
  text === null
    ? []
    : text.split(',').map((e) => {
        const bar = e.indexOf('|')
        return { plate: e.slice(bar + 1), state: e.slice(0, bar) }
      })

/** A name officers wrote for the carrier at the roadside. */
export interface RoadsideName {
  name: string
  inspections: number
  last_seen: string
}

/** The equipment facts of one USDOT (the record's `equipment` block, without census figures). */
export interface CarrierEquipment {
  /** distinct valid VINs of power units seen under it in the window */
  power_units_seen: number
  /** distinct valid VINs of trailers seen under it in the window */
  trailers_seen: number
  last_inspection_date: string | null
  /** report states, most inspections first */
  inspection_states: string[]
  /** of its valid, not widely shared VINs, how many were also seen under another USDOT */
  vins_seen_under_other_carriers: number
  roadside: {
    /** inspections whose carrier name the officer recorded (Vehicle Inspection File) */
    inspections: number
    names_seen: RoadsideName[]
    /**
     * inspections whose officer-written name matches neither the census legal nor DBA name after
     * normalisation; null when no census name was given. A review fact, never proof of fraud.
     */
    name_mismatches: number | null
    last_seen_on_road: string | null
  }
  window: EquipmentWindow
}

/** A row of carrier_equipment (one per USDOT inspected in the window). */
interface CarrierEquipmentRow {
  inspections: number
  last_day: number | null
  power_units: number
  trailers: number
  vins_shared: number
  roadside_inspections: number
  last_roadside_day: number | null
}

/** The USDOT last read from carrier_equipment, per open version, with its row (or none). */
const lastCarrierRow = new WeakMap<
  ActiveDataset,
  { dot: number; row: CarrierEquipmentRow | null }
>()

/**
 * The carrier_equipment row of a USDOT, or null when it was not inspected in the window. A
 * record reads it twice (its equipment block, then its VIN links): the second read is the first's.
 */
function carrierRow(ds: ActiveDataset, dot: number): CarrierEquipmentRow | null {
  const last = lastCarrierRow.get(ds)
  if (last?.dot === dot) return last.row
  // about two thirds of the census were not inspected in the window: a bit test answers them
  const row = listsDot(ds.db, 'carrier_equipment', dot, 'dot')
    ? ((ds.stmt('SELECT * FROM carrier_equipment WHERE dot = ?').get(dot) as
        CarrierEquipmentRow | undefined) ?? null)
    : null
  lastCarrierRow.set(ds, { dot, row })
  return row
}

/**
 * The equipment facts of USDOT `dot` in the dataset's window (zeros when it was never inspected),
 * or null when the dataset has no window. `names`: the census legal and DBA names, to count the
 * roadside name mismatches.
 */
export function equipmentForCarrier(
  ds: ActiveDataset,
  dot: number,
  names: { legalName: string | null; dbaName: string | null } = { legalName: null, dbaName: null },
): CarrierEquipment | null {
  const window = equipmentWindow(ds)
  if (!window) return null
  const row = carrierRow(ds, dot)
  // carrier_states and carrier_names are built from the same inspections in the window as
  // carrier_equipment: a USDOT without its row has none, and one with no inspection naming the
  // carrier (roadside_inspections 0) has no names; most USDOTs cost one read
  const states = row
    ? (ds
        .stmt('SELECT state FROM carrier_states WHERE dot = ? ORDER BY inspections DESC, state')
        .pluck()
        .all(dot) as string[])
    : []
  const seen =
    row && row.roadside_inspections > 0
      ? (ds
          .stmt(
            `SELECT name, inspections, last_day FROM carrier_names WHERE dot = ?
             ORDER BY inspections DESC, last_day DESC, name`,
          )
          .all(dot) as { name: string; inspections: number; last_day: number }[])
      : []
  const census = [names.legalName, names.dbaName]
    .filter((n): n is string => n !== null && n.trim() !== '')
    .map(normalizeCarrierName)
  const mismatches =
    census.length === 0
      ? null
      : seen
          .filter((n) => !census.includes(normalizeCarrierName(n.name)))
          .reduce((sum, n) => sum + n.inspections, 0)
  return {
    power_units_seen: row?.power_units ?? 0,
    trailers_seen: row?.trailers ?? 0,
    last_inspection_date: row?.last_day != null ? dayToIso(row.last_day) : null,
    inspection_states: states,
    vins_seen_under_other_carriers: row?.vins_shared ?? 0,
    roadside: {
      inspections: row?.roadside_inspections ?? 0,
      names_seen: seen.map((n) => ({
        name: n.name,
        inspections: n.inspections,
        last_seen: dayToIso(n.last_day),
      })),
      name_mismatches: mismatches,
      last_seen_on_road: row?.last_roadside_day != null ? dayToIso(row.last_roadside_day) : null,
    },
    window,
  }
}

/**
 * The answer of GET /v1/equipment (before its meta block): `legalName` names a USDOT (the
 * census's), `year` is the current year (the model year is never more than one year ahead).
 */
export function toEquipmentJson(
  s: Sightings,
  legalName: (dot: number) => string | null,
  year: number,
  plateQuery: boolean,
): EquipmentAnswerJson {
  return {
    vin: s.vin,
    vin_valid: s.vinValid,
    model_year: s.vin === null ? null : modelYear(s.vin, year),
    plate: s.plate,
    carriers: s.carriers.map((c) => ({
      dot_number: String(c.dot),
      legal_name: legalName(c.dot),
      first_seen: c.firstSeen,
      last_seen: c.lastSeen,
      inspections: c.inspections,
      crashes: c.crashes,
      plates: c.plates,
      ...(plateQuery ? { vins: c.vins } : {}),
      unit_type: c.unitType,
      make: c.make,
    })),
    shared_widely: s.sharedWidely,
    window: s.window,
  }
}

/**
 * The other USDOTs the company's valid VINs were seen under, counting only VINs seen under at
 * most `cap` carriers (a VIN seen under more is a lessor's or a rental fleet's: never a link;
 * `vinsOverCap` counts them). A VIN seen under this carrier alone is not joined.
 */
export function vinLinksOf(ds: ActiveDataset, dot: number, cap: number): Set<number> {
  // the pairs within the dataset's own cap are built with it (equipment.ts vin_links): a bit
  // test answers the companies with none, nearly all of them
  if (cap === metaOf(ds).sharedAbove && hasSchemaObject(ds, 'vin_links')) {
    if (!listsDot(ds.db, 'vin_links', dot, 'dot')) return new Set()
    return new Set(
      ds.stmt('SELECT other FROM vin_links WHERE dot = ?').pluck().all(dot) as number[],
    )
  }
  // an equipment file built before the index by USDOT has no VIN links
  if (!hasSchemaObject(ds, 'vin_carriers_by_dot')) return new Set()
  // carrier_equipment counts, per USDOT inspected in the window, its valid VINs seen under 2 to
  // SHARED_WIDELY_ABOVE carriers: with none of them, and that cap, the join finds nothing
  if (cap === metaOf(ds).sharedAbove && carrierRow(ds, dot)?.vins_shared === 0) return new Set()
  const others = ds
    .stmt(
      `SELECT b.dot AS other FROM vin_carriers a INDEXED BY vin_carriers_by_dot
       CROSS JOIN vin_carriers b ON b.vin = a.vin AND b.dot <> a.dot
       WHERE a.dot = ? AND a.valid = 1 AND a.carriers > 1 AND a.carriers <= ?`,
    )
    .pluck()
    .all(dot, cap) as number[]
  return new Set(others)
}

/** How many of the company's valid VINs were seen under more than `cap` carriers. */
export function vinsOverCap(ds: ActiveDataset, dot: number, cap: number): number {
  if (!hasSchemaObject(ds, 'vin_carriers_by_dot')) return 0
  return ds
    .stmt(
      `SELECT count(*) FROM vin_carriers INDEXED BY vin_carriers_by_dot
       WHERE dot = ? AND valid = 1 AND carriers > ?`,
    )
    .pluck()
    .get(dot, cap) as number
}
