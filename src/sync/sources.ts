/**
 * Every regulator file the mirror downloads, as data (docs/data.md): derived from the
 * DatasetSpecs (which own ids, kinds and parsers), plus the URL form, schedule and role of each.
 * FMCSA_BASE_URL replaces the portal for an internal mirror with the same URL layout.
 */
import { DATASETS } from './datasets.ts'
import type { DatasetSpec, SourceFileSpec } from '../ingest/types.ts'
import type { DatasetName } from '../db/names.ts'

export type UrlForm = SourceFileSpec['format']

/**
 * `rows` = `/api/views/<id>/rows.csv?accessType=DOWNLOAD` (CSV with a header; the bulk form);
 * `text` = `/download/<id>/text%2Fplain` (legacy headerless text). `/resource/<id>.csv` and SODA
 * JSON truncate silently and are never used.
 */
export function sourceUrl(baseUrl: string, id: string, form: UrlForm): string {
  const base = baseUrl.replace(/\/+$/, '')
  return form === 'rows'
    ? `${base}/api/views/${id}/rows.csv?accessType=DOWNLOAD`
    : `${base}/download/${id}/text%2Fplain`
}

/** What each file contributes to the record (shown by `sync status` and the docs). */
const ROLES: Record<string, string> = {
  'az4n-8mr2': 'identity, contact, fleet, rating, census dockets',
  '6eyk-hxee': 'authority and on-file amounts per docket (frozen baseline)',
  'qh9u-swkp': 'active and pending policies (frozen baseline)',
  '6sqe-dvqs': 'filing history (frozen baseline)',
  '9mw4-x3tu': 'authority grants, revocations, reinstatements (frozen baseline)',
  'sa6p-acbp': 'revocation orders (frozen baseline)',
  '2emp-mxtb': 'process agents, BOC-3 (frozen baseline)',
  'inys-ebih': 'current authority and on-file amounts (row per authority)',
  'c5y8-a4uz': 'current policies, bonds and trust funds',
  '3uet-3z4i': 'filing history and pending cancellations',
  'yu5v-wbh6': 'authority events (granted, revoked, reinstated)',
  'wb4f-neki': 'revocation and suspension orders',
  '6snj-ed7q': 'process agents, BOC-3',
  'nakq-58th': 'change log of Motus Carrier',
  'x96h-evps': 'change log of Motus Insur',
  'xe5s-wca7': 'change log of Motus InsHist',
  'dm5j-zc6c': 'change log of Motus AuthHist',
  'e67p-xyd5': 'change log of Motus RevokeSuspend',
  'kjg3-diqy': 'SMS scope: private-only and passenger flags',
  'rbkj-cgst': 'inspections (24 months): hazmat counts, fallback driver/vehicle counts',
  '4wxs-vbns': 'crashes (24 months): fatal, injury, tow-away',
  '4y6x-dmck': 'inspection totals, OOS inspections, BASIC measures (carrier operations A+B)',
  'h9zy-gjn8': 'the same for intrastate non-hazmat carriers (operation C)',
  'm3ry-qcip': 'passenger carriers: BASIC percentiles and alerts (A+B)',
  'h3zn-uid9': 'passenger carriers: BASIC percentiles and alerts (C)',
  'p2mt-9ige': 'out-of-service orders (active, rescinded)',
  '8mt8-2mdr': 'violations (24 months): English-language-proficiency out-of-service counts',
  'fx4q-ay7w':
    'roadside inspections (3 years): the carrier name, address and docket as the officer wrote them',
  'wt8s-2hbx': 'inspected units (3 years): VIN, plate, make of each unit, by inspection id',
}

export interface SourceUrl {
  id: string
  form: UrlForm
  url: string
}

export interface Source {
  dataset: DatasetName
  schedule: DatasetSpec['schedule']
  id: string
  title: string
  kind: SourceFileSpec['kind']
  required: boolean
  role: string
  /** where it is fetched first */
  primary: SourceUrl
  /** tried in order when the primary answers 404 (e.g. the legacy text form under its own id) */
  fallbacks: SourceUrl[]
  /** fetched incrementally after the first full export (sync/incremental.ts) */
  incremental?: SourceFileSpec['incremental']
}

/** The sources of one dataset. */
export function sourcesOf(spec: DatasetSpec, baseUrl: string): Source[] {
  return spec.files.map((f) => ({
    dataset: spec.name,
    schedule: spec.schedule,
    id: f.id,
    title: f.title,
    kind: f.kind,
    required: f.required,
    role: ROLES[f.id] ?? f.title,
    ...(f.incremental ? { incremental: f.incremental } : {}),
    primary: { id: f.id, form: f.format, url: sourceUrl(baseUrl, f.id, f.format) },
    fallbacks:
      f.kind === 'diff'
        ? [] // a diff 404 means "not yet published": never look elsewhere
        : (f.altIds ?? []).map((id) => ({ id, form: 'text', url: sourceUrl(baseUrl, id, 'text') })),
  }))
}

/** Every mirrored file of every dataset, in build order. */
export function listSources(baseUrl: string, specs: readonly DatasetSpec[] = DATASETS): Source[] {
  return specs.flatMap((s) => sourcesOf(s, baseUrl))
}
