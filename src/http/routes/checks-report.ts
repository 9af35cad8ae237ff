/** GET /v1/checks/{id}/report.pdf — the check as a PDF report a person can hand over. */
import { Hono } from 'hono'
import { checkReport } from '../../checks/checks.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { CHECK_ID_PARAM, CheckId } from './checks-get.ts'
import { honoPath, type Endpoint } from './endpoint.ts'

const doc: RouteDoc = {
  method: 'get',
  path: '/v1/checks/{id}/report.pdf',
  operationId: 'getCheckReport',
  summary: 'A check as a PDF report',
  description:
    "The stored check as a PDF to hand over: the effective verdict (after overrides) first, the company, who ran it and when, every rule with the values found in words, the data sources with the regulator's dates and file hashes, the overrides with their authors, and the policy as an appendix; every page's footer carries the check id, the sha256 of the signed document and the signing key's fingerprint. The PDF is a rendering, not the evidence: the signed document is (GET /v1/checks/{id}, or an export checked with verify.mjs). Another account's check is a 404, as is an unknown id. Not billed.",
  tags: ['checks'],
  auth: true,
  billing: 'not billed (reading a stored check, like GET /v1/checks/{id}).',
  params: [CHECK_ID_PARAM],
  responses: {
    200: {
      description: 'The report (application/pdf)',
      content: { 'application/pdf': { type: 'string', format: 'binary' } },
    },
  },
  errors: ['invalid_request', 'unauthorized', 'payment_required', 'not_found'],
}

export const checksReportEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().get(honoPath(doc), (c) => {
      const id = parseOr(CheckId, c.req.param('id'), 'invalid_request')
      const pdf = checkReport(deps, c.get('caller').accountId, id)
      return c.body(new Uint8Array(pdf), 200, {
        'content-type': 'application/pdf',
        'content-disposition': `inline; filename="${id}.pdf"`,
        'cache-control': 'private, no-store',
      })
    }),
}
