import { describe, expect, test } from 'vitest'
import { AppError } from '../errors.ts'
import { xlsx } from '../testing/xlsx.ts'
import { MAX_ROWS, parseFile, parseItems } from './parse.ts'

const text = (s: string) => new TextEncoder().encode(s)
const refused = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(AppError)
  const e = err as AppError
  return { status: e.status, message: e.message }
}

describe('parseFile', () => {
  test('a CSV with a header: dot, mc and reference columns; bad rows set aside with their reason', async () => {
    const csv =
      'USDOT Number,Reference\n1000001,CARRIER-1\nabc,CARRIER-2\n\n0,Z\n1000001,again\n123456789,big\n'
    const r = await parseFile('list.csv', text(csv))
    expect(r.rows).toEqual([{ row: 2, kind: 'dot', value: '1000001', reference: 'CARRIER-1' }])
    expect(r.rejected.map((x) => [x.row, x.reason])).toEqual([
      [3, 'USDOT number must contain digits only'],
      [5, 'USDOT number must not be 0'],
      [6, 'duplicate of row 2'],
      [7, 'USDOT number must be at most 8 digits'],
    ])
    const mc = await parseFile('m.csv', text('\uFEFFmc,ref\nMC-100002,T-9\n100003,\n'))
    expect(mc.rows).toEqual([
      { row: 2, kind: 'mc', value: 'MC-100002', reference: 'T-9' },
      { row: 3, kind: 'mc', value: '100003', reference: null },
    ])
  })

  test('without a header, column A is the number (digits = USDOT, MC-… = docket) and B the reference', async () => {
    const r = await parseFile('x.csv', text('1000001,A\nMC-100002,B\n'))
    expect(r.rows.map((x) => [x.row, x.kind, x.value, x.reference])).toEqual([
      [1, 'dot', '1000001', 'A'],
      [2, 'mc', 'MC-100002', 'B'],
    ])
  })

  test('an XLSX is read (numbers and text), its formulas and macros refused', async () => {
    const book = xlsx([
      ['DOT', 'Reference'],
      [1000001, 'R-1'],
      ['1000002', 'R-2'],
    ])
    const r = await parseFile('carriers.xlsx', book)
    expect(r.rows.map((x) => [x.row, x.value, x.reference])).toEqual([
      [2, '1000001', 'R-1'],
      [3, '1000002', 'R-2'],
    ])
    expect(r.rejected).toEqual([])
    const f = await refused(parseFile('c.xlsx', xlsx([['DOT'], [{ formula: 'A1+1' }]])))
    expect(f).toEqual({
      status: 400,
      message: expect.stringContaining('Cell A2 of sheet1.xml holds a formula') as string,
    })
    const m = await refused(parseFile('c.xlsx', xlsx([['DOT'], [1000001]], { macro: true })))
    expect(m).toMatchObject({ status: 415, message: expect.stringContaining('macros') as string })
    expect(await refused(parseFile('c.xlsm', book))).toMatchObject({ status: 415 })
  })

  test('files that are not what they claim, junk, legacy .xls, CSV formulas and too many rows are refused', async () => {
    expect(await refused(parseFile('a.xlsx', text('1000001\n')))).toMatchObject({ status: 415 })
    expect(await refused(parseFile('a.csv', xlsx([[1]])))).toMatchObject({ status: 415 })
    expect(
      await refused(parseFile('a.xls', new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0, 0]))),
    ).toMatchObject({ status: 415 })
    const junk = new Uint8Array(4096).map((_, i) => (i * 7919) % 256)
    expect(await refused(parseFile('a.csv', junk))).toMatchObject({ status: 415 })
    const zipJunk = new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...junk])
    expect(await refused(parseFile('a.xlsx', zipJunk))).toMatchObject({ status: 415 })
    expect(await refused(parseFile('a.csv', text('dot\n=HYPERLINK("x")\n')))).toMatchObject({
      status: 400,
      message: expect.stringContaining('formula') as string,
    })
    expect(await refused(parseFile('a.csv', new Uint8Array(6 * 1024 * 1024)))).toMatchObject({
      status: 413,
    })
    const many = `dot\n${Array.from({ length: MAX_ROWS + 1 }, (_, i) => String(i + 1)).join('\n')}\n`
    expect(await refused(parseFile('a.csv', text(many)))).toEqual({
      status: 413,
      message: expect.stringContaining('10001 rows') as string,
    })
    expect(await refused(parseFile('a.csv', text('dot\n\n')))).toMatchObject({ status: 400 })
  })

  test('JSON items: dot or mc, duplicates and unreadable items rejected', () => {
    const r = parseItems([
      { dot: 1000001 },
      { mc: 'MC-100002', reference: 'x' },
      { mc: '??' },
      { dot: '1000001' },
    ])
    expect(r.rows.map((x) => [x.row, x.kind, x.value])).toEqual([
      [1, 'dot', '1000001'],
      [2, 'mc', 'MC-100002'],
    ])
    expect(r.rejected.map((x) => x.row)).toEqual([3, 4])
  })
})
