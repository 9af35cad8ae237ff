/**
 * A typed client of the Carrier and Broker Verification API, generated from the appliance's own
 * /openapi.json with openapi-typescript and called through openapi-fetch. Every operation of the
 * API is called once in `tour()`; the functions above it are the ones an integration would copy.
 */
import createClient, { type Client } from 'openapi-fetch'
import type { components, paths } from './generated/api.js'

export type Api = Client<paths>
export type Carrier = components['schemas']['CarrierRecord']
export type ErrorBody = components['schemas']['Error']

/** A client for one appliance and one API key (`cvk_live_…` or `cvk_test_…`). */
export function apiClient(baseUrl: string, apiKey: string): Api {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } })
}

/** An error answer of the API: `{status, error, code, request_id}`. */
export class ApiError extends Error {
  constructor(readonly body: ErrorBody) {
    super(`${body.status} ${body.code}: ${body.error} (request ${body.request_id})`)
  }
}

/** The full record of a company by USDOT number; null when no company has it. */
export async function carrierByDot(api: Api, dot: string): Promise<Carrier | null> {
  const { data, error } = await api.GET('/v1/carrier/{dot}', { params: { path: { dot } } })
  if (error) {
    if (error.code === 'not_found') return null
    throw new ApiError(error)
  }
  return data
}

/** The first page of a name search. */
export async function searchByName(api: Api, q: string, limit = 10) {
  const { data, error } = await api.GET('/v1/search', { params: { query: { q, limit } } })
  if (error) throw new ApiError(error)
  return data.results
}

/** A stored, signed check of a company (by USDOT number) against the account's vetting policy. */
export async function checkCarrier(api: Api, dot: string, reference: string) {
  const { data, error } = await api.POST('/v1/checks', { body: { dot, reference } })
  if (error) throw new ApiError(error)
  return data
}

/** One call of every operation: its id and the HTTP status it answered with. */
export async function tour(
  api: Api,
  company: { dot: string; mc: string; vin: string; plate: { plate: string; state: string } },
): Promise<{ operationId: string; status: number }[]> {
  const calls: { operationId: string; status: number }[] = []
  const seen = (operationId: string, r: { response: Response }) =>
    calls.push({ operationId, status: r.response.status })
  const { dot, mc, vin, plate } = company

  seen('home', await api.GET('/', { headers: { accept: 'application/json' } }))
  seen('healthz', await api.GET('/healthz'))
  seen('readyz', await api.GET('/readyz'))
  seen('metrics', await api.GET('/metrics', { parseAs: 'text' }))
  const document = await api.GET('/openapi.json')
  if (document.data?.openapi !== '3.1.0') throw new Error('not an OpenAPI 3.1 document')
  seen('getOpenApi', document)
  seen('getDocsPage', await api.GET('/docs', { parseAs: 'text' }))
  seen(
    'getDocsAsset',
    await api.GET('/docs/{file}', { params: { path: { file: 'init.js' } }, parseAs: 'text' }),
  )

  const carrier = await api.GET('/v1/carrier/{dot}', { params: { path: { dot } } })
  if (carrier.data && carrier.data.dot_number !== dot) throw new Error('another company answered')
  seen('getCarrier', carrier)
  seen(
    'getBroker',
    await api.GET('/v1/broker/{mc}', { params: { path: { mc }, query: { crosscheck: 'false' } } }),
  )
  seen(
    'getCarrierHistory',
    await api.GET('/v1/carrier/{dot}/history', { params: { path: { dot }, query: { limit: 5 } } }),
  )
  seen('getCarrierLinks', await api.GET('/v1/carrier/{dot}/links', { params: { path: { dot } } }))
  seen('getBond', await api.GET('/v1/bond/{dot}', { params: { path: { dot } } }))
  seen(
    'verifyBatch',
    await api.POST('/v1/verify', { body: { companies: [{ dot }, { mc, crosscheck: false }] } }),
  )
  seen('getEquipmentByVin', await api.GET('/v1/equipment/{vin}', { params: { path: { vin } } }))
  seen('getEquipmentByPlate', await api.GET('/v1/equipment', { params: { query: plate } }))
  seen('search', await api.GET('/v1/search', { params: { query: { q: dot, limit: 5 } } }))

  const code = await api.POST('/v1/contact-verifications', { body: { dot, channel: 'email' } })
  seen('createContactVerification', code)
  if (!code.data) throw new ApiError(code.error)
  seen(
    'confirmContactVerification',
    await api.POST('/v1/contact-verifications/{id}/confirm', {
      params: { path: { id: code.data.id } },
      body: { code: '000000' },
    }),
  )

  const entry = await api.POST('/v1/blocklist', {
    body: { type: 'phone', value: '+1 305 555 0199', reason: 'double-brokered a load' },
  })
  seen('addBlocklistEntry', entry)
  seen('listBlocklist', await api.GET('/v1/blocklist'))
  if (!entry.data) throw new ApiError(entry.error)
  seen(
    'removeBlocklistEntry',
    await api.DELETE('/v1/blocklist/{id}', { params: { path: { id: entry.data.id } } }),
  )

  // the truck at the dock: its VIN and the trailer's plate, answered in the check's equipment_check
  const check = await api.POST('/v1/checks', {
    body: { dot, reference: 'TOUR-1', equipment: [{ vin }, plate] },
  })
  seen('createCheck', check)
  seen('listChecks', await api.GET('/v1/checks', { params: { query: { limit: 5, dot } } }))
  if (!check.data) throw new ApiError(check.error)
  const id = check.data.check_id
  seen('getCheck', await api.GET('/v1/checks/{id}', { params: { path: { id } } }))
  // a binary answer: the check as a PDF report to hand over
  const report = await api.GET('/v1/checks/{id}/report.pdf', {
    params: { path: { id } },
    parseAs: 'arrayBuffer',
  })
  seen('getCheckReport', report)
  if (report.data && new TextDecoder().decode(report.data.slice(0, 5)) !== '%PDF-')
    throw new Error('the report is not a PDF')
  seen(
    'overrideCheck',
    await api.POST('/v1/checks/{id}/override', {
      params: { path: { id } },
      // openapi-typescript types a field with a default as required (its defaultNonNullable)
      body: { by: 'QA', reason: 'known carrier', verdict: 'pass' },
    }),
  )

  // a list of companies checked in the background (a CSV or XLSX upload works the same way)
  const onboarding = await api.POST('/v1/onboarding', {
    body: { companies: [{ dot, reference: 'TOUR-2' }, { mc }] },
  })
  seen('createOnboarding', onboarding)
  if (!onboarding.data) throw new ApiError(onboarding.error)
  seen(
    'getOnboarding',
    await api.GET('/v1/onboarding/{id}', { params: { path: { id: onboarding.data.id } } }),
  )
  return calls
}
