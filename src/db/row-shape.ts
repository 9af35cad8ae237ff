/**
 * Row objects with V8's fast properties. An object given its properties one by one (better-sqlite3's
 * row objects, or a loop over column names) turns into a dictionary once it has more than about a
 * dozen: slower to build, to read and to serialise. A row made by an object literal keeps a fixed
 * shape; `rowShape` compiles that literal once per column list.
 */

import type Database from 'better-sqlite3'

/** Builds `{ ...lead, [columns[i]]: values[i] }` objects of one shape. */
export type RowShape = (values: readonly unknown[], lead?: object) => object

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Compiles the literal of a row with `leadKeys` (taken from `lead` by name) then `columns` (taken
 * from `values` by position). Names must be plain identifiers: they are the code's own column
 * names, never data.
 */
export function rowShape(columns: readonly string[], leadKeys: readonly string[] = []): RowShape {
  for (const c of [...leadKeys, ...columns])
    if (!IDENT.test(c) || c === '__proto__')
      throw new Error(`rowShape: not a column name: ${JSON.stringify(c)}`)
  const props = [
    ...leadKeys.map((k) => `${k}: lead.${k}`),
    ...columns.map((c, i) => `${c}: values[${i}]`),
  ]
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- names checked above
  return new Function('values', 'lead', `return { ${props.join(', ')} }`) as RowShape
}

/**
 * Shapes per prepared statement (prepared once per connection): the same text can name other
 * columns in another file (`SELECT *` over another schema).
 */
const byStatement = new WeakMap<Database.Statement, RowShape>()

/**
 * `stmt.get(...params)` as a row of fast properties, named by the statement's columns (the
 * statement is switched to array rows, so it must not be shared with a caller wanting objects).
 */
export function getRow<T extends object>(
  stmt: Database.Statement,
  ...params: unknown[]
): T | undefined {
  const values = stmt.raw(true).get(...params) as unknown[] | undefined
  if (!values) return undefined
  let shape = byStatement.get(stmt)
  if (!shape) byStatement.set(stmt, (shape = rowShape(stmt.columns().map((c) => c.name))))
  return shape(values) as T
}
