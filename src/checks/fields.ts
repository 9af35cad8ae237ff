/**
 * The field paths a policy may name: every path of the record as served (CheckedRecordJson) and
 * of the check's own blocks (`contact_check.*`, `equipment_check.*`), read from their schemas so a new record field is
 * known at once. A policy naming any other path is refused with the closest known path suggested.
 */
import { z } from 'zod'
import { BlocklistCheckJson } from './blocklist-check.ts'
import { ContactCheckJson } from './contact.ts'
import { EquipmentCheckJson } from './equipment.ts'
import type { PolicyDocument } from './policy-schema.ts'
import { CheckedRecordJson } from './schema.ts'

/** Known paths; a path ending in `.*` takes any sub-path (a free-form map). */
function pathsOf(s: z.ZodType, prefix: string, out: string[]): string[] {
  let t: z.ZodType = s
  while (t instanceof z.ZodNullable || t instanceof z.ZodOptional || t instanceof z.ZodDefault)
    t = t.unwrap() as z.ZodType
  if (prefix) out.push(prefix)
  if (t instanceof z.ZodObject)
    for (const [k, v] of Object.entries<unknown>(t.shape))
      pathsOf(v as z.ZodType, prefix ? `${prefix}.${k}` : k, out)
  else if (t instanceof z.ZodRecord) out.push(`${prefix}.*`)
  return out
}

let known: { exact: Set<string>; open: string[] } | null = null

function knownPaths() {
  known ??= (() => {
    const all = [
      ...pathsOf(CheckedRecordJson, '', []),
      ...pathsOf(ContactCheckJson, 'contact_check', []),
      ...pathsOf(EquipmentCheckJson, 'equipment_check', []),
      ...pathsOf(BlocklistCheckJson, 'blocklist_check', []),
    ]
    return {
      exact: new Set(all.filter((p) => !p.endsWith('.*'))),
      open: all.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -1)),
    }
  })()
  return known
}

export const isKnownPath = (path: string) => {
  const k = knownPaths()
  return k.exact.has(path) || k.open.some((p) => path.startsWith(p))
}

/** Edit distance with adjacent transpositions. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  const at = (i: number, j: number) => d[i]?.[j] ?? 0
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, at(i - 2, j - 2) + 1)
      const row = d[i]
      if (row) row[j] = v
    }
  return at(a.length, b.length)
}

/** The known path nearest to a misspelt one. */
export function closestPath(path: string): string {
  let best = ''
  let bestD = Infinity
  for (const p of knownPaths().exact) {
    const dd = distance(path, p)
    if (dd < bestD) [best, bestD] = [p, dd]
  }
  return best
}

/**
 * What a syntactically valid policy still gets wrong: a field path that names nothing (with the
 * closest known path), and `missing: pass` without `missing_pass_acknowledged: true`.
 */
export function policyProblems(policy: PolicyDocument): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = []
  policy.rules.forEach((rule, i) => {
    const check = (field: string, path: string) => {
      if (!isKnownPath(field))
        problems.push({
          path,
          message: `unknown field ${field}: did you mean ${closestPath(field)}?`,
        })
    }
    rule.when?.forEach((c, j) => check(c.field, `rules.${i}.when.${j}.field`))
    const req = rule.require
    if ('any' in req) req.any.forEach((c, j) => check(c.field, `rules.${i}.require.any.${j}.field`))
    else if ('all' in req)
      req.all.forEach((c, j) => check(c.field, `rules.${i}.require.all.${j}.field`))
    else check(req.field, `rules.${i}.require.field`)
    if (rule.missing === 'pass' && rule.missing_pass_acknowledged !== true)
      problems.push({
        path: `rules.${i}.missing`,
        message:
          'missing: pass lets a company pass when the field is not on file; add missing_pass_acknowledged: true to the rule if that is meant',
      })
  })
  return problems
}
