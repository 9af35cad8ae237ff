/** GET /v1/checks — the account's checks, newest first. */
import { Hono } from 'hono'
import { CheckListQuery, listChecks } from '../../checks/list.ts'
import { CheckListJson } from '../../checks/schema.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'

const doc: RouteDoc = {
  method: 'get',
  path: '/v1/checks',
  operationId: 'listChecks',
  summary: "List the account's checks",
  description:
    "Summaries of the account's checks, newest first, filtered by `dot`, `reference` and a `from`/`to` time range (a bare date covers its whole UTC day); `limit` ≤ 100 (default 50); `next_cursor` pages on. Not billed.",
  tags: ['checks'],
  auth: true,
  billing: 'not billed.',
  query: CheckListQuery,
  responses: { 200: { description: 'A page of checks', schema: CheckListJson, name: 'CheckList' } },
  errors: ['invalid_request', 'unauthorized', 'payment_required'],
}

export const checksListEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().get(honoPath(doc), (c) => {
      const q = parseOr(CheckListQuery, c.req.query(), 'invalid_request')
      return c.json(listChecks(deps.db, c.get('caller').accountId, q, c.get('caller').mode), 200)
    }),
}
