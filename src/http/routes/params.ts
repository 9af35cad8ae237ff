/** Request pieces shared by several endpoints: the `dot` and `crosscheck` parameters, JSON bodies. */
import type { Context } from 'hono'
import { z } from 'zod'
import { DotParam } from '../../carriers/docket.ts'
import { AppError } from '../../errors.ts'
import type { AppEnv } from '../env.ts'
import { publishAs, type ParamDoc } from '../openapi.ts'

/** `?crosscheck=true|false` */
export const CrosscheckQuery = z
  .enum(['true', 'false', '1', '0'], { message: 'crosscheck must be true or false' })
  .transform((v) => v === 'true' || v === '1')
  .optional()

export const CROSSCHECK_PARAM: ParamDoc = {
  name: 'crosscheck',
  in: 'query',
  required: false,
  description:
    '`true` also asks the regulator (QCMobile) and adds a `crosscheck` block; a regulator outage never fails the lookup',
  schema: CrosscheckQuery,
}

export const DOT_PARAM: ParamDoc = {
  name: 'dot',
  in: 'path',
  required: true,
  description: 'USDOT number: 1 to 8 digits, not 0',
  // one pattern for generated clients (DotParam checks it in steps, with a message for each)
  schema: publishAs(DotParam, z.string().regex(/^(?!0+$)[0-9]{1,8}$/)),
  example: '344554',
}

/** JSON body of a POST: 415 for another media type, 400 for an empty or malformed body. */
export async function readJson(c: Context<AppEnv>, example: string): Promise<unknown> {
  const type = c.req.header('content-type')?.trim()
  // no Content-Type at all is read as JSON (curl --data-binary); any other type is refused
  if (type && !/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type))
    throw new AppError(
      'unsupported_media_type',
      'Content-Type must be application/json (curl: -H "Content-Type: application/json")',
    )
  const text = await c.req.text()
  if (text.trim() === '')
    throw new AppError('invalid_request', `Request body is required: ${example}`)
  if (jsonDepth(text) > MAX_JSON_DEPTH)
    throw new AppError(
      'invalid_request',
      `Request body is nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`,
    )
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid JSON')
  }
}

/** Deepest nesting of arrays and objects a request body may have (a batch needs 3). */
export const MAX_JSON_DEPTH = 32

/**
 * The deepest nesting of `[`/`{` in a JSON text, brackets inside strings ignored; one linear scan,
 * before JSON.parse, so a hostile 10,000-deep value never reaches a recursive function.
 */
export function jsonDepth(text: string): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (inString) {
      if (ch === 0x5c)
        i++ // backslash: skip the escaped character
      else if (ch === 0x22) inString = false
    } else if (ch === 0x22) inString = true
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) max = depth
    } else if (ch === 0x5d || ch === 0x7d) depth--
  }
  return max
}
