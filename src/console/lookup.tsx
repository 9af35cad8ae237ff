/**
 * The lookup tester: a record shown for people — authority, insurance, safety with its BASICs and
 * driver qualification, equipment and roadside identity, the Trust Score with every gate and factor
 * and its evidence. It reads the same domain functions as the API (never the API itself, never an
 * API key) and is not billed; it is limited to 120 lookups an hour per console user so it cannot
 * stand in for the API.
 */
import type { Hono } from 'hono'
import { HOUR } from '../clock.ts'
import type { CompanyRecord } from '../carriers/record.ts'
import { openRecords } from '../carriers/records.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { WEIGHTS } from '../trust/policy.ts'
import { RateLimiter } from '../users/rate-limit.ts'
import { accountNav } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, sessionOf } from './guard.ts'
import { Layout, num } from './layout.tsx'

type Scalar = string | number | boolean | null | undefined
const show = (v: Scalar) =>
  v === null || v === undefined
    ? '—'
    : typeof v === 'boolean'
      ? v
        ? 'yes'
        : 'no'
      : typeof v === 'number'
        ? num(v)
        : v
const money = (v: number | null) => (v === null ? '—' : `$${num(v)}`)

function Facts(props: { rows: [string, Scalar][] }) {
  return (
    <dl class="facts">
      {props.rows.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{show(v)}</dd>
        </>
      ))}
    </dl>
  )
}

/** `trust.unverified_reasons` in words (docs/trust-score.md "Verified"). */
function reasonInWords(reason: string): string {
  const [kind, what] = reason.split(':', 2)
  if (reason === 'sample_data') return 'the bundled sample data answered (fictitious companies)'
  if (reason === 'data_stale') return 'the data is not confirmed current'
  if (kind === 'dataset_missing') return `the ${what ?? '?'} data is not loaded`
  if (kind === 'dataset_stale')
    return `the ${what ?? '?'} data is older than its freshness limit (DATASET_MAX_AGE_HOURS)`
  if (kind === 'gate') return `a hard gate failed (${what ?? '?'})`
  return reason
}

/**
 * What the factors add to: each component starts at a neutral base and the factors move it,
 * within 0 and the component's maximum; the gates then cap the total.
 */
function baseLine(components: Record<string, number> | null): string {
  if (!components) return ''
  const weights = 'safety' in components ? WEIGHTS.carrier : WEIGHTS.broker
  const parts = Object.entries(components).map(([name, points]) => {
    const w = weights[name as keyof typeof weights]
    return w ? `${name} ${w.base} → ${points} of ${w.max}` : `${name} ${points}`
  })
  const base = Object.values(weights).reduce((n, w) => n + w.base, 0)
  return `The factors below add to a neutral base of ${base} points (per component: ${parts.join(', ')}); each component stays within 0 and its maximum, and a gate caps the total.`
}

/** The header facts: names, docket, status, where the data came from. */
function IdentityFacts(props: { r: CompanyRecord }) {
  const { r } = props
  return (
    <>
      <Facts
        rows={[
          ['DBA', r.dba_name],
          ['Docket', r.mc_number],
          ['Entity', r.identity.entity_types.join(', ') || null],
          ['USDOT status', r.identity.usdot_status],
          ['Out of service', r.identity.out_of_service],
          ['Data source', r.source],
          [
            "Data as of (the regulator's date)",
            Object.entries(r.dataAsOf)
              .filter(([, d]) => d)
              .map(([k, d]) => `${k} ${d ?? ''}`)
              .join(', ') || null,
          ],
          [
            'Imported here',
            Object.entries(r.importedAt)
              .filter(([, d]) => d)
              .map(([k, d]) => `${k} ${(d ?? '').slice(0, 16).replace('T', ' ')} UTC`)
              .join(', ') || null,
          ],
        ]}
      />
    </>
  )
}

/** The Trust Score with its gates, base and every factor with its evidence. */
function TrustView(props: { r: CompanyRecord }) {
  const t = props.r.trust
  return (
    <>
      <h3>Trust Score</h3>
      <p>
        <strong class="value">{t.trust_score ?? '—'}</strong> / 100 · grade {t.grade ?? '—'} ·{' '}
        <span class={`badge ${t.trust_verified ? 'ok' : 'warn'}`}>
          {t.trust_verified ? 'verified' : 'not verified'}
        </span>{' '}
        {t.trust_verified ? null : (
          <span id="unverified-why">
            why: {t.unverified_reasons.map(reasonInWords).join('; ') || 'unknown'}.{' '}
          </span>
        )}
        <span class="muted">method {t.version ?? '—'}</span>
      </p>
      {t.gates.length ? (
        <>
          <h4>Gates (caps)</h4>
          <ul>
            {t.gates.map((g) => (
              <li>
                cap {g.cap}: {g.reason}{' '}
                <span class="muted">
                  ({g.evidence.dataset}.{g.evidence.field} = {String(g.evidence.value)}, as of{' '}
                  {g.evidence.as_of ?? '—'})
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p id="score-base" class="muted">
        {baseLine(t.components)}
      </p>
      <table>
        <caption>Factors and their evidence</caption>
        <thead>
          <tr>
            <th scope="col">Component</th>
            <th scope="col" class="num">
              Points
            </th>
            <th scope="col">Reason</th>
            <th scope="col">Evidence</th>
          </tr>
        </thead>
        <tbody>
          {t.factors.map((f) => (
            <tr>
              <td>{f.component}</td>
              <td class="num">{f.points > 0 ? `+${f.points}` : f.points}</td>
              <td>{f.reason}</td>
              <td>
                <code>
                  {f.evidence.dataset}.{f.evidence.field}
                </code>{' '}
                = {String(f.evidence.value)}{' '}
                <span class="muted">as of {f.evidence.as_of ?? '—'}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}

/** Operating authority and its revocation history. */
function AuthorityView(props: { r: CompanyRecord }) {
  const a = props.r.authority
  return (
    <>
      <h3>Operating authority</h3>
      <Facts
        rows={[
          ['Status', a.status],
          [
            'Common / contract / broker',
            `${a.common_authority ?? '—'} / ${a.contract_authority ?? '—'} / ${a.broker_authority ?? '—'}`,
          ],
          ['Allowed to operate', a.allowed_to_operate],
          ['Granted', a.granted_date],
          ['Revoked', a.revoked_date],
          ['Revocation pending', a.revocation_pending],
          ['Source', a.source],
        ]}
      />
      {a.history.length ? (
        <table>
          <caption>Revocation history</caption>
          <thead>
            <tr>
              <th scope="col">Docket</th>
              <th scope="col">Type</th>
              <th scope="col">Served</th>
              <th scope="col">Revoked</th>
              <th scope="col">Reinstated</th>
            </tr>
          </thead>
          <tbody>
            {a.history.map((h) => (
              <tr>
                <td>{show(h.docket_number)}</td>
                <td>{show(h.revocation_type)}</td>
                <td>{show(h.serve_date)}</td>
                <td>{show(h.revocation_date)}</td>
                <td>{show(h.reinstatement_date)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  )
}

/** Insurance on file and the filings. */
function InsuranceView(props: { r: CompanyRecord }) {
  const ins = props.r.insurance
  return (
    <>
      <h3>Insurance</h3>
      <Facts
        rows={[
          ['BIPD on file', money(ins.bipd_on_file)],
          ['BIPD required', money(ins.bipd_required)],
          ['Cargo on file', money(ins.cargo_on_file)],
          ['Bond / trust fund on file', money(ins.bond_on_file)],
          ['Insurer', ins.insurer],
          ['Policy', ins.policy_no],
          ['Effective', ins.effective_date],
          ['Pending cancellation', ins.pending_cancellation],
        ]}
      />
      {ins.filings.length ? (
        <table>
          <caption>Filings</caption>
          <thead>
            <tr>
              <th scope="col">Form</th>
              <th scope="col">Insurer</th>
              <th scope="col">Effective</th>
              <th scope="col">Cancelled</th>
              <th scope="col" class="num">
                Coverage
              </th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {ins.filings.slice(0, 20).map((f) => (
              <tr>
                <td>{show(f.form)}</td>
                <td>{show(f.insurer)}</td>
                <td>{show(f.effective_date)}</td>
                <td>{show(f.cancellation_date)}</td>
                <td class="num">{money(f.max_coverage)}</td>
                <td>{f.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  )
}

/** Safety: rating, OOS rates, crashes, the BASICs and driver qualification. */
function SafetyView(props: { r: CompanyRecord }) {
  const s = props.r.safety
  return (
    <>
      <h3>Safety</h3>
      <Facts
        rows={[
          ['Rating', s.safety_rating],
          ['Inspections (24 months)', s.inspections_total],
          [
            'Driver OOS rate',
            s.driver_oos_rate === null
              ? null
              : `${s.driver_oos_rate} % (national ${s.driver_oos_rate_national_average ?? '—'} %)`,
          ],
          [
            'Vehicle OOS rate',
            s.vehicle_oos_rate === null
              ? null
              : `${s.vehicle_oos_rate} % (national ${s.vehicle_oos_rate_national_average ?? '—'} %)`,
          ],
          [
            'Crashes (fatal / injury / tow-away)',
            s.crash_total === null
              ? null
              : `${s.crash_total} (${s.fatal_crash ?? 0} / ${s.injury_crash ?? 0} / ${s.towaway_crash ?? 0})`,
          ],
        ]}
      />
      <DriverQualificationView r={props.r} />
      <table>
        <caption>BASICs</caption>
        <thead>
          <tr>
            <th scope="col">BASIC</th>
            <th scope="col" class="num">
              Measure
            </th>
            <th scope="col" class="num">
              Percentile
            </th>
            <th scope="col">Alert</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {s.basics.map((b) => (
            <tr>
              <td>{b.name}</td>
              <td class="num">{show(b.measure)}</td>
              <td class="num">{b.public ? show(b.percentile) : 'not public'}</td>
              <td>{b.alert ? <span class="badge bad">alert</span> : show(b.alert)}</td>
              <td>{show(b.reason)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}

/** `safety.driver_qualification`: the driver-qualification citations of 24 months. */
function DriverQualificationView(props: { r: CompanyRecord }) {
  const dq = props.r.safety.driver_qualification
  if (!dq)
    return (
      <p id="driver-qualification" class="muted">
        Driver qualification: the SMS Input Violation file is not loaded.
      </p>
    )
  return (
    <section id="driver-qualification" aria-labelledby="dq-h">
      <h4 id="dq-h">Driver qualification ({dq.window_months} months)</h4>
      <Facts
        rows={[
          ['No valid CDL', dq.no_valid_cdl],
          ['Disqualified or suspended', dq.disqualified_or_suspended],
          ['Wrong licence class', dq.wrong_class],
          ['Medical certificate', dq.medical],
          ['English proficiency', dq.english_proficiency],
          ['As of', dq.as_of],
        ]}
      />
    </section>
  )
}

/** The `equipment` block: units seen at the roadside, the names officers wrote, shared VINs. */
function EquipmentView(props: { r: CompanyRecord }) {
  const e = props.r.equipment
  const road = e.roadside
  return (
    <section id="equipment" aria-labelledby="eq-h">
      <h3 id="eq-h">Equipment and roadside identity</h3>
      {e.reason ? (
        <p class="muted">The equipment data is not loaded ({e.reason}).</p>
      ) : (
        <p class="muted">
          Seen in inspections and crashes {e.window?.from ?? '—'} to {e.window?.to ?? '—'}, as of{' '}
          {e.as_of ?? '—'}. A name mismatch or a VIN seen under another carrier is a question to
          ask, not proof: leased-on owner-operators run under other names.
        </p>
      )}
      <Facts
        rows={[
          ['Power units seen (valid VINs)', e.power_units_seen],
          ['Power units reported (MCS-150)', e.reported_power_units],
          ['Trailers seen', e.trailers_seen],
          ['Last inspection', e.last_inspection_date],
          ['Inspection states', e.inspection_states.join(', ') || null],
          ['VINs seen under other carriers', e.vins_seen_under_other_carriers],
          ['Roadside inspections with a name', road?.inspections],
          ['Name mismatches', road?.name_mismatches],
          ['Last seen on the road', road?.last_seen_on_road],
        ]}
      />
      {road?.names_seen.length ? (
        <table>
          <caption>Names officers wrote</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" class="num">
                Inspections
              </th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {road.names_seen.map((n) => (
              <tr>
                <td>{n.name}</td>
                <td class="num">{num(n.inspections)}</td>
                <td>{n.last_seen}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}

/** A whole record, one component per block. */
function RecordView(props: { r: CompanyRecord }) {
  const { r } = props
  return (
    <article aria-labelledby="rec-h">
      <h2 id="rec-h">
        {r.legal_name ?? 'Unnamed'} <span class="muted">· USDOT {r.dot_number}</span>
      </h2>
      <IdentityFacts r={r} />
      <TrustView r={r} />
      <AuthorityView r={r} />
      <InsuranceView r={r} />
      <SafetyView r={r} />
      <EquipmentView r={r} />
    </article>
  )
}

export function lookupRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  const limiter = new RateLimiter(120, HOUR)
  app.get('/accounts/:id/lookup', (c) => {
    const account = accountOf(c, deps)
    const session = sessionOf(c)
    const raw = (c.req.query('dot') ?? '').trim()
    let record: CompanyRecord | null = null
    let error: string | null = null
    if (raw) {
      const now = deps.clock()
      const key = `lookup:${session.user.id}`
      const wait =
        /^\d{1,8}$/.test(raw) && Number(raw) !== 0 ? limiter.reserve(key, now.getTime()) : -1
      if (wait < 0) error = 'A USDOT number has 1 to 8 digits.'
      else if (wait > 0)
        error = `The tester allows 120 lookups an hour; try again in ${Math.ceil(wait / 60)} min.`
      else {
        try {
          record = openRecords(deps, 'live').recordNow(Number(raw))
          if (!record) error = `No company with USDOT ${raw}.`
        } catch (err) {
          if (err instanceof AppError && err.code === 'dataset_unavailable')
            error = 'No dataset is loaded yet.'
          else throw err
        }
      }
    }
    const base = `/console/accounts/${account.id}/lookup`
    return c.html(
      <Layout
        title="Lookup tester"
        nonce={c.get('nonce')}
        session={session}
        flash={c.get('flash')}
        error={error}
        nav={accountNav(account.id)}
        current={base}
      >
        <h1>Lookup tester</h1>
        <p class="muted">
          Shows what the API answers for a USDOT number, laid out for reading. Lookups here are not
          billed.
        </p>
        <form class="row" method="get" action={base} role="search">
          <div>
            <label for="dot">USDOT number</label>
            <br />
            <input
              id="dot"
              name="dot"
              inputmode="numeric"
              pattern="[0-9]{1,8}"
              value={raw}
              required
            />
          </div>
          <button type="submit">Look up</button>
        </form>
        {record ? <RecordView r={record} /> : null}
      </Layout>,
    )
  })
}
