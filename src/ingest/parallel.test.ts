import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Papa from 'papaparse'
import { afterAll, describe, expect, test } from 'vitest'
import { readCsv, splitByteRanges } from './csv.ts'
import { parseInWorker } from './parallel.ts'

const dir = mkdtempSync(join(tmpdir(), 'cv-parallel-'))
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// the row parser the workers run: the fields as they are, a reject for a row reading REJECT
const parserFile = join(dir, 'rows.ts')
writeFileSync(
  parserFile,
  "export const echo = (f: string[]): string[] | string => (f[0] === 'REJECT' ? `rejected ${f[1]}` : f)\n",
)
const parser = { module: pathToFileURL(parserFile).href, exportName: 'echo' }

let n = 0
const write = (text: string) => {
  const path = join(dir, `f${n++}.csv`)
  writeFileSync(path, text)
  return path
}

/** The whole file through the one-stream reader: what every split must reproduce. */
async function sequential(path: string) {
  const out: [number, string[]][] = []
  for await (const r of readCsv(path, { header: 'header', columns: ['a', 'b', 'c'] }))
    out.push([r.line, r.fields])
  return out
}

async function parallel(path: string, rangeBytes: number, workers: number) {
  const rows: [number, string[]][] = []
  const rejects: [number, string][] = []
  for await (const batch of parseInWorker<string[]>(
    path,
    { header: 'header', columns: ['a', 'b', 'c'] },
    parser,
    (line, reason) => rejects.push([line, reason]),
    { rangeBytes, workers },
  ))
    for (const r of batch) rows.push([r.line, r.row])
  return { rows, rejects }
}

// quoted newlines (one, several, a run of them longer than a range), escaped quotes, a stray
// quote inside an unquoted field, blank lines, CRLF, multi-byte UTF-8 and a reject
const tricky = [
  'a,b,c',
  ...Array.from({ length: 60 }, (_, i) => {
    switch (i % 10) {
      case 1:
        return `${i},"two\nlines",x`
      case 2:
        return `${i},"say ""hi""\nand ""bye""",y`
      case 3:
        return `${i},12" PIPE,z`
      case 4:
        return `${i},"${'long\n'.repeat(30)}end",w`
      case 5:
        return `${i},Ünïcödé ✓ 🚚,v\r`
      case 6:
        return `REJECT,${i},u`
      case 7:
        return `\n${i},after blank,t`
      default:
        return `${i},plain ${i},p`
    }
  }),
].join('\n')

describe('parseInWorker over byte ranges', () => {
  test('splitByteRanges covers the file end to end, each range starting after a newline', async () => {
    const path = write(tricky)
    const size = readFileSync(path).length
    const ranges = await splitByteRanges(path, 50)
    const bytes = readFileSync(path)
    expect(ranges[0]?.start).toBe(0)
    expect(ranges.at(-1)?.end).toBe(size)
    ranges.forEach((r, i) => {
      expect(r.end).toBeGreaterThan(r.start)
      if (i > 0) {
        expect(r.start).toBe(ranges[i - 1]?.end)
        expect(bytes[r.start - 1]).toBe(10)
      }
    })
    expect(ranges.length).toBeGreaterThan(20)
  })

  test.each([
    [16, 2],
    [50, 2],
    [97, 3],
    [1 << 20, 2],
  ])(
    'ranges of %i bytes over %i workers give every record once, in order, with its line number',
    async (rangeBytes, workers) => {
      const path = write(tricky)
      const want = await sequential(path)
      const got = await parallel(path, rangeBytes, workers)
      expect(got.rejects).toEqual(
        want.filter(([, f]) => f[0] === 'REJECT').map(([line, f]) => [line, `rejected ${f[1]}`]),
      )
      expect(got.rows).toEqual(want.filter(([, f]) => f[0] !== 'REJECT'))
      expect(got.rows.length + got.rejects.length).toBe(60)
      // the quoted newlines stayed inside their fields
      expect(got.rows.find(([, f]) => f[0] === '4')?.[1][1]).toBe(`${'long\n'.repeat(30)}end`)
    },
  )

  test('an unterminated quote runs to the end of the file, as it does in one stream', async () => {
    const path = write(`a,b,c\n1,x,y\n2,"open\n3,z,z\n4,z,z\n5,z,z\n6,z,z\n`)
    const want = await sequential(path)
    const got = await parallel(path, 8, 2)
    expect(got.rows).toEqual(want)
    expect(got.rows).toHaveLength(2)
  })

  test('a file without a final newline keeps its last record', async () => {
    const path = write(`a,b,c\n1,x,y\n2,"q\nq",z\n3,last,row`)
    const got = await parallel(path, 8, 2)
    expect(got.rows).toEqual(await sequential(path))
    expect(got.rows.at(-1)).toEqual([3, ['3', 'last', 'row']])
  })

  test('a wrong header is refused whichever worker reads it', async () => {
    const path = write(`x,y,z\n${'1,2,3\n'.repeat(50)}`)
    await expect(parallel(path, 16, 2)).rejects.toThrow(/header does not match/)
  })
})

test('records and multi-byte characters across the 64 KB text chunks read as in one parse', async () => {
  // 380 KB of the tricky records (quoted newlines, CRLF, 2- to 4-byte UTF-8): chunk edges fall
  // inside records, inside quoted fields and inside characters
  const body = tricky.split('\n').slice(1).join('\n')
  const text = `a,b,c\n${Array.from({ length: 200 }, () => body).join('\n')}\n`
  expect(Buffer.byteLength(text)).toBeGreaterThan(300_000)
  const path = write(text)
  const whole = Papa.parse<string[]>(text, { skipEmptyLines: true, delimiter: ',' }).data.slice(1)
  const want = whole.map((fields, i) => [i + 1, fields] as [number, string[]])
  expect(await sequential(path)).toEqual(want)
  const got = await parallel(path, 100_000, 2)
  expect(got.rows).toEqual(want.filter(([, f]) => f[0] !== 'REJECT'))
  expect(got.rows.length + got.rejects.length).toBe(200 * 60)
})
