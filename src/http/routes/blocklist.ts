/**
 * POST /v1/blocklist, GET /v1/blocklist, DELETE /v1/blocklist/{id} — the account's own blocked
 * list (blocklist/). Not billed; another account's entries are invisible (404 on delete).
 */
import { Hono } from 'hono'
import { z } from 'zod'
import {
  addEntry,
  BlocklistEntryJson,
  BlocklistInput,
  BlocklistJson,
  listEntries,
  removeEntry,
} from '../../blocklist/blocklist.ts'
import { AppError } from '../../errors.ts'
import type { AppEnv } from '../env.ts'
import type { ParamDoc, RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { readJson } from './params.ts'

const EntryId = z
  .string()
  .regex(/^\d{1,15}$/, 'an entry id is digits')
  .transform(Number)
const ID_PARAM: ParamDoc = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'the `id` of a blocked-list entry',
  schema: EntryId,
  example: '12',
}

const add: RouteDoc = {
  method: 'post',
  path: '/v1/blocklist',
  operationId: 'addBlocklistEntry',
  summary: 'Add an identifier to the blocked list',
  description:
    'Adds a USDOT number, MC/FF/MX docket, phone, e-mail, VIN, officer name or address the account has been burned by, with the reason. The value is validated for its type (400 naming `value`) and stored normalised (E.164 phone, lower-case e-mail, `MC123`); the same value twice is a 409. See docs/identity.md.',
  tags: ['blocklist'],
  auth: true,
  billing: 'not billed.',
  body: {
    name: 'BlocklistRequest',
    schema: BlocklistInput,
    description:
      '`{"type": "phone", "value": "+1 305 555 0199", "reason": "double-brokered a load"}`',
    example: { type: 'phone', value: '+1 305 555 0199', reason: 'double-brokered load 2026-11-02' },
  },
  responses: {
    201: { description: 'The entry', schema: BlocklistEntryJson, name: 'BlocklistEntry' },
  },
  errors: [
    'invalid_request',
    'unauthorized',
    'payment_required',
    'conflict',
    'payload_too_large',
    'unsupported_media_type',
  ],
}

const list: RouteDoc = {
  method: 'get',
  path: '/v1/blocklist',
  operationId: 'listBlocklist',
  summary: "The account's blocked list",
  description: "Every entry of the account's blocked list, newest first.",
  tags: ['blocklist'],
  auth: true,
  billing: 'not billed.',
  responses: { 200: { description: 'The entries', schema: BlocklistJson, name: 'Blocklist' } },
  errors: ['unauthorized', 'payment_required'],
}

const remove: RouteDoc = {
  method: 'delete',
  path: '/v1/blocklist/{id}',
  operationId: 'removeBlocklistEntry',
  summary: 'Remove an entry from the blocked list',
  description: "Removes one of the account's entries; another account's entry is a 404.",
  tags: ['blocklist'],
  auth: true,
  billing: 'not billed.',
  params: [ID_PARAM],
  responses: { 204: { description: 'Removed' } },
  errors: ['invalid_request', 'unauthorized', 'payment_required', 'not_found'],
}

const EXAMPLE = '{"type": "email", "value": "dispatch@example.com", "reason": "…"}'

export const blocklistEndpoint: Endpoint = {
  docs: [add, list, remove],
  routes: (deps) =>
    new Hono<AppEnv>()
      .post(honoPath(add), async (c) => {
        const input = parseOr(BlocklistInput, await readJson(c, EXAMPLE), 'invalid_request')
        const caller = c.get('caller')
        const entry = addEntry(
          deps.db,
          caller.accountId,
          input,
          `key:${caller.keyId}`,
          deps.clock().getTime(),
        )
        return c.json(entry, 201)
      })
      .get(honoPath(list), (c) =>
        c.json({ entries: listEntries(deps.db, c.get('caller').accountId) }, 200),
      )
      .delete(honoPath(remove), (c) => {
        const id = parseOr(EntryId, c.req.param('id'), 'invalid_request')
        if (!removeEntry(deps.db, c.get('caller').accountId, id))
          throw new AppError('not_found', `No blocked-list entry ${id}`)
        return c.body(null, 204)
      }),
}
