/**
 * OUT OF SERVICE ORDERS `p2mt-9ige` (docs/safety.md): one row per order, rebuilt in full
 * daily. Whether an order is active depends on the day of the lookup (a rescind date can lie in
 * the future), so the build keeps every order and the lookup decides.
 */
import type { ActiveDataset } from '../db/datasets.ts'
import type { BuildContext, DatasetSpec } from '../ingest/types.ts'
import { parsedRows } from './read.ts'
import { listsDot } from '../db/dot-set.ts'

export const OOS_FILE_ID = 'p2mt-9ige'

const DDL = `
CREATE TABLE oos_orders (
  id INTEGER PRIMARY KEY,
  dot_number INTEGER NOT NULL,
  oos_date TEXT,
  reason TEXT,
  status TEXT,
  rescind_date TEXT
) STRICT;
`
const POST_DDL = `CREATE INDEX oos_orders_dot ON oos_orders (dot_number, oos_date);`

async function buildOos(ctx: BuildContext): Promise<void> {
  ctx.db.exec(DDL)
  const path = ctx.inputs.get(OOS_FILE_ID)
  if (!path) throw new Error(`OOS orders file ${OOS_FILE_ID} is missing`)
  const insert = ctx.db.prepare(
    'INSERT INTO oos_orders (dot_number, oos_date, reason, status, rescind_date) VALUES (?, ?, ?, ?, ?)',
  )
  let badOosDate = 0
  let badRescind = 0
  let blank = 0
  let notActive = 0
  const rows = parsedRows(ctx, OOS_FILE_ID, path, 'oosOrderRow')
  await ctx.insertBatches(OOS_FILE_ID, rows, ({ row }) => {
    const [dot, oosDate, reason, status, rescind, oosUnread, rescindUnread] = row
    badOosDate += oosUnread
    badRescind += rescindUnread
    // STATUS values are undocumented: count what is not ACTIVE so a new value shows in the stats
    if (status === null) blank++
    else if (status !== 'ACTIVE') notActive++
    insert.run(dot, oosDate, reason, status, rescind)
    ctx.accept(OOS_FILE_ID)
  })
  const notes = {
    'oos.unparsed_oos_date': badOosDate,
    'oos.unparsed_rescind_date': badRescind,
    'oos.status_blank': blank,
    'oos.status_not_active': notActive,
  }
  for (const [k, n] of Object.entries(notes)) if (n) ctx.note(k, n)
  ctx.db.exec(POST_DDL)
}

export const oosDataset: DatasetSpec = {
  name: 'oos',
  title: 'Out-of-service orders',
  files: [
    {
      id: OOS_FILE_ID,
      title: 'OUT OF SERVICE ORDERS',
      format: 'rows',
      kind: 'full',
      required: true,
    },
  ],
  schedule: 'daily',
  minRowsRatio: 0.9,
  maxRejectRatio: 0.01,
  build: buildOos,
}

/** One order as stored (dates YYYY-MM-DD). */
export interface OosOrderRow {
  oos_date: string | null
  reason: string | null
  status: string | null
  rescind_date: string | null
}

/** Every order of a USDOT, newest first (undated last: NULL sorts lowest); a backward index scan. */
export function findOosOrders(ds: ActiveDataset, dot: number): OosOrderRow[] {
  // about 7 % of USDOTs have an order: the others are answered without a query
  if (!listsDot(ds.db, 'oos_orders', dot)) return []
  return ds
    .stmt(
      `SELECT oos_date, reason, status, rescind_date FROM oos_orders WHERE dot_number = ?
       ORDER BY oos_date DESC, id DESC`,
    )
    .all(dot) as OosOrderRow[]
}

/**
 * An order is active when its STATUS is ACTIVE and it has no rescind date on or before `today`
 * (a future rescind date means the order still stands until then).
 */
export function isOosOrderActive(o: OosOrderRow, today: string): boolean {
  return o.status === 'ACTIVE' && (o.rescind_date === null || o.rescind_date > today)
}
