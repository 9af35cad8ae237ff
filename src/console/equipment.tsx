/**
 * The Equipment page: a VIN, or a plate and its state, and the USDOT numbers it was seen under in
 * the regulator's inspection and crash files, drawn as a timeline (first → last sighting per
 * carrier). It reads the same domain functions as GET /v1/equipment (never the API, never a key)
 * and is not billed; limited like the lookup tester so it cannot stand in for the API.
 */
import type { Hono } from 'hono'
import { HOUR, isoDate } from '../clock.ts'
import { isoToDay } from '../dates.ts'
import { findCensusRow } from '../census/read.ts'
import type { Deps } from '../deps.ts'
import { SHARED_WIDELY_ABOVE } from '../equipment/equipment.ts'
import { sightingsOf, type Sightings } from '../equipment/read.ts'
import {
  isPlaceholderVin,
  modelYear,
  normalizePlate,
  normalizeState,
  normalizeVin,
  vinStatus,
} from '../equipment/vin.ts'
import { RateLimiter } from '../users/rate-limit.ts'
import { accountNav } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, sessionOf } from './guard.ts'
import { Layout, num } from './layout.tsx'

const WIDTH = 760
/** The left column holds each row's USDOT and name; the bars run on the axis right of it. */
const LABEL = 290
const ROW = 24
const short = (name: string | null | undefined) =>
  !name ? '' : name.length > 28 ? `${name.slice(0, 27)}…` : name

/** First → last sighting per carrier on the window's axis (SVG: no inline styles under the CSP). */
function Timeline(props: { s: Sightings; names: Map<number, string | null> }) {
  const { s } = props
  const from = isoToDay(s.window.from)
  const span = Math.max(1, isoToDay(s.window.to) - from)
  const axis = WIDTH - LABEL - 8
  const x = (iso: string) => LABEL + ((isoToDay(iso) - from) / span) * axis
  const height = s.carriers.length * ROW + 22
  return (
    <figure>
      <svg
        role="img"
        aria-label={`Timeline of ${s.carriers.length} carrier(s) from ${s.window.from} to ${s.window.to}`}
        viewBox={`0 0 ${WIDTH} ${height}`}
        width="100%"
        class="timeline"
      >
        <rect x={LABEL} y="0" width={axis} height={height - 18} fill="#f1f5f9" />
        {s.carriers.map((c, i) => {
          const x1 = x(c.firstSeen)
          const w = Math.max(6, x(c.lastSeen) - x1)
          return (
            <g>
              <title>
                USDOT {c.dot}: {c.firstSeen} → {c.lastSeen}, {c.inspections} inspection(s),{' '}
                {c.crashes} crash(es)
              </title>
              <text x="0" y={i * ROW + 16} font-size="12">
                {c.dot} {short(props.names.get(c.dot))}
              </text>
              <rect
                x={Math.min(x1, WIDTH - 8 - w).toFixed(1)}
                y={i * ROW + 5}
                width={w.toFixed(1)}
                height={ROW - 10}
                rx="3"
                fill={i === 0 ? '#2563eb' : '#64748b'}
              />
            </g>
          )
        })}
        <text x={LABEL} y={height - 4} font-size="11">
          {s.window.from}
        </text>
        <text x={WIDTH - 8} y={height - 4} font-size="11" text-anchor="end">
          {s.window.to}
        </text>
      </svg>
      <figcaption class="muted">
        Each bar runs from the first to the last sighting under that USDOT in the window (a single
        sighting is a short bar); the newest last sighting is on top, in blue.
      </figcaption>
    </figure>
  )
}

function Result(props: { s: Sightings; names: Map<number, string | null>; year: number }) {
  const { s } = props
  const vinNote =
    s.vin === null
      ? null
      : s.vinValid
        ? `valid VIN (17 characters, check digit right)${
            modelYear(s.vin, props.year) ? `, model year ${modelYear(s.vin, props.year)}` : ''
          }`
        : 'invalid VIN: not 17 characters without I, O and Q with a right check digit (49 CFR 565). It is shown, but never counted as a link between carriers.'
  return (
    <article aria-labelledby="eq-h">
      <h2 id="eq-h">
        {s.plate ? `Plate ${s.plate.plate} (${s.plate.state})` : `VIN ${s.vin ?? ''}`}
      </h2>
      {s.plate && s.vin ? <p>Seen most recently with VIN {s.vin}.</p> : null}
      {vinNote ? (
        <p>
          <span class={`badge ${s.vinValid ? 'ok' : 'warn'}`}>
            {s.vinValid ? 'valid VIN' : 'invalid VIN'}
          </span>{' '}
          {vinNote}
        </p>
      ) : null}
      {s.sharedWidely ? (
        <p>
          <span class="badge warn">shared widely</span> Seen under more than {SHARED_WIDELY_ABOVE}{' '}
          USDOT numbers in the window: a lessor's or rental fleet's unit, or a number written
          carelessly. It is never counted as a link on its own.
        </p>
      ) : null}
      <Timeline s={s} names={props.names} />
      <table>
        <caption>
          Carriers, {s.window.from} to {s.window.to}
        </caption>
        <thead>
          <tr>
            <th scope="col">USDOT</th>
            <th scope="col">Legal name</th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
            <th scope="col" class="num">
              Inspections
            </th>
            <th scope="col" class="num">
              Crashes
            </th>
            <th scope="col">Plates</th>
            <th scope="col">Unit</th>
          </tr>
        </thead>
        <tbody>
          {s.carriers.map((c) => (
            <tr>
              <td>{c.dot}</td>
              <td>{props.names.get(c.dot) ?? '—'}</td>
              <td>{c.firstSeen}</td>
              <td>{c.lastSeen}</td>
              <td class="num">{num(c.inspections)}</td>
              <td class="num">{num(c.crashes)}</td>
              <td>{c.plates.map((p) => `${p.plate} (${p.state})`).join(', ') || '—'}</td>
              <td>{[c.unitType, c.make].filter(Boolean).join(', ') || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  )
}

/** The query a form sent, or an error message for the person. */
function parseQuery(
  vinRaw: string,
  plateRaw: string,
  stateRaw: string,
): { vin: string } | { plate: string; state: string } | string | null {
  if (vinRaw) {
    if (vinRaw.length > 40 || !/^[A-Za-z0-9 .-]+$/.test(vinRaw))
      return 'A VIN has letters and digits (spaces and dashes are ignored).'
    const vin = normalizeVin(vinRaw)
    if (vin.length === 0 || vin.length > 17) return 'A VIN has at most 17 letters and digits.'
    if (isPlaceholderVin(vin))
      return `${vin} is a placeholder, not a vehicle identifier: placeholders are never stored or linked.`
    return { vin }
  }
  if (plateRaw || stateRaw) {
    const state = normalizeState(stateRaw)
    if (!state) return 'Choose the plate’s state or province (two letters).'
    const plate = plateRaw.length <= 20 ? normalizePlate(plateRaw) : null
    if (!plate || !/^[A-Z0-9]{2,10}$/.test(plate)) return 'A plate has 2 to 10 letters and digits.'
    return { plate, state }
  }
  return null
}

export function equipmentRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  const limiter = new RateLimiter(120, HOUR)
  app.get('/accounts/:id/equipment', (c) => {
    const account = accountOf(c, deps)
    const session = sessionOf(c)
    const vinRaw = (c.req.query('vin') ?? '').trim()
    const plateRaw = (c.req.query('plate') ?? '').trim()
    const stateRaw = (c.req.query('state') ?? '').trim()
    const now = deps.clock()
    let error: string | null = null
    let found: Sightings | null = null
    const names = new Map<number, string | null>()
    const q = parseQuery(vinRaw, plateRaw, stateRaw)
    if (typeof q === 'string') error = q
    else if (q) {
      const key = `equipment:${session.user.id}`
      const wait = limiter.retryAfter(key, now.getTime())
      if (wait > 0)
        error = `The page allows 120 lookups an hour; try again in ${Math.ceil(wait / 60)} min.`
      else {
        limiter.hit(key, now.getTime())
        const view = deps.datasets.view('live')
        const ds = view.get('equipment')
        if (!ds) error = 'The equipment dataset is not loaded yet.'
        else {
          found = sightingsOf(ds, q)
          const census = view.get('census')
          for (const car of found?.carriers ?? [])
            names.set(car.dot, census ? (findCensusRow(census, car.dot)?.legal_name ?? null) : null)
          if (!found)
            error =
              'vin' in q
                ? `VIN ${q.vin} was not seen in the last 24 months${vinStatus(q.vin) === 'valid' ? '' : ' (and it is not a valid 17-character VIN)'}.`
                : `Plate ${q.plate} (${q.state}) was not seen in the last 24 months.`
        }
      }
    }
    const base = `/console/accounts/${account.id}/equipment`
    return c.html(
      <Layout
        title="Equipment"
        nonce={c.get('nonce')}
        session={session}
        flash={c.get('flash')}
        error={error}
        nav={accountNav(account.id)}
        current={base}
      >
        <h1>Equipment</h1>
        <p class="muted">
          Which USDOT numbers a truck or trailer was seen under at roadside inspections and in
          crashes in the last 24 months, from the regulator's files. Lookups here are not billed.
        </p>
        <form class="row" method="get" action={base} role="search">
          <div>
            <label for="vin">VIN</label>
            <br />
            <input id="vin" name="vin" maxlength={40} value={vinRaw} autocomplete="off" />
          </div>
          <p class="muted">or</p>
          <div>
            <label for="plate">Plate</label>
            <br />
            <input id="plate" name="plate" maxlength={20} value={plateRaw} autocomplete="off" />
          </div>
          <div>
            <label for="state">State</label>
            <br />
            <input id="state" name="state" maxlength={2} size={3} value={stateRaw} />
          </div>
          <button type="submit">Look up</button>
        </form>
        {found ? <Result s={found} names={names} year={now.getUTCFullYear()} /> : null}
        <p class="muted">
          As of {isoDate(now)}. A VIN or plate under another carrier is a question to ask, not proof
          of fraud: leased-on owner-operators, sold and rented units are common.
        </p>
      </Layout>,
    )
  })
}
