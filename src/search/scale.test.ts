/**
 * Name search on a census written by the benchmark generator (tools/generate, full-scale profile:
 * the realistic name vocabulary), imported through the real pipeline into real SQLite.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { writeScaleDataset } from '../../tools/generate/dataset.ts'
import { censusEntityType } from '../census/entity.ts'
import { findCensusRow, type CensusRow } from '../census/read.ts'
import { entityTypes } from '../carriers/entity.ts'
import { CarrierJson } from '../carriers/schema.ts'
import { openActive, type ActiveDataset, type DataView } from '../db/datasets.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import {
  expandPrefix,
  holdsWords,
  nameCandidates,
  namesHoldingAtMost,
  pairWordsOf,
  prefixTerms,
  rareCompletions,
  splitLastWord,
  tagKindsOf,
  type ReadPosition,
  type WordsMatch,
} from './fts.ts'
import { SearchResponse } from './page.ts'
import { CANDIDATES, FIRST_BLOCK, searchCompanies } from './query.ts'

/** [limit, budget] pairs of the read tests: no budget, a small page, a budget spent, a budget of 1. */
const READ_CASES = [
  [5000, undefined],
  [20, undefined],
  [300, 40],
  [5000, 1],
] as const

let ctx: TestContext
let key: string
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cvk-search-scale-'))
  await writeScaleDataset(dir, { censusRows: 6000, files: ['census'] })
  ctx = await createTestContext({ liveDir: dir })
  key = ctx.account('scale').key()
}, 60_000)
afterAll(() => ctx.close())

const census = () => {
  const c = ctx.deps.datasets.get('census', 'live')
  if (!c) throw new Error('no census')
  return c
}
const search = async (qs: string) => {
  const res = await ctx.get(`/v1/search?${qs}`, key)
  expect(res.status, qs).toBe(200)
  return SearchResponse.parse(await res.json())
}
const words = (s: string | null) => (s ?? '').toUpperCase().split(/[^\p{L}\p{N}]+/u)

describe('prefix expansion with the generator vocabulary', () => {
  test('a short prefix expands to its most frequent words, most frequent first', () => {
    const terms = expandPrefix(census(), 'tr')
    expect(terms.length).toBeGreaterThan(5)
    expect(terms.slice(0, 8)).toEqual(expect.arrayContaining(['trucking', 'transport']))
    expect(terms.every((t) => t.startsWith('tr'))).toBe(true)
  })

  test.each(['tr', 'truc', 'smi', 'lo', 'EAGLE EX'])(
    'q=%s: every result has a word starting with it',
    async (q) => {
      const { results } = await search(`q=${encodeURIComponent(q)}&limit=50`)
      expect(results.length).toBeGreaterThan(0)
      const last = q.toUpperCase().split(' ').at(-1) ?? ''
      for (const r of results)
        expect(
          [...words(r.legal_name), ...words(r.dba_name)].some((w) => w.startsWith(last)),
          `${r.legal_name} / ${r.dba_name}`,
        ).toBe(true)
    },
  )

  test('a whole name finds that company first (names that start with q are ranked wherever they sit)', async () => {
    const rows = census()
      .db.prepare(
        `SELECT dot_number, legal_name FROM companies WHERE legal_name IS NOT NULL
         ORDER BY dot_number DESC LIMIT 40`,
      )
      .all() as { dot_number: number; legal_name: string }[]
    for (const r of rows) {
      const { results } = await search(`q=${encodeURIComponent(r.legal_name)}&limit=50`)
      const same = results.filter((x) => x.legal_name === r.legal_name)
      expect(
        same.map((x) => x.dot_number),
        r.legal_name,
      ).toContain(String(r.dot_number))
      expect(results[0]?.legal_name, r.legal_name).toBe(r.legal_name)
    }
  })
})

describe('entity type from precomputed census data', () => {
  test('equals the record rule with no licensing, for every generated company', () => {
    const rows = census().db.prepare('SELECT dot_number FROM companies').all() as {
      dot_number: number
    }[]
    expect(rows.length).toBe(6000)
    const seen = new Set<string | null>()
    for (const { dot_number } of rows) {
      const c = findCensusRow(census(), dot_number) as CensusRow
      const e = censusEntityType(c.classdef, c.power_units, c.dockets)
      seen.add(e)
      expect(e, String(dot_number)).toBe(
        entityTypes({ census: c, roles: null, privateOnly: null }).primary,
      )
    }
    expect(seen).toEqual(new Set(['carrier', 'private', 'forwarder', null]))
  })

  test('equals the record rule for arbitrary census classes, fleets and dockets', () => {
    const cls = fc.constantFrom(
      'AUTHORIZED FOR HIRE',
      'EXEMPT FOR HIRE',
      'PRIVATE PROPERTY',
      'PRIVATE PASSENGER, BUSINESS',
      'PRIV. PASS. (NON-BUSINESS)',
      'private property',
      ' MIGRANT ',
      'U.S. MAIL',
      'OTHER',
      '',
    )
    fc.assert(
      fc.property(
        fc.option(fc.array(cls, { maxLength: 3 }).map((a) => a.join(';'))),
        fc.option(fc.integer({ min: 0, max: 5 })),
        fc.option(
          fc
            .array(fc.constantFrom('MC1', 'FF2', 'MX3', 'MC44'), { minLength: 1, maxLength: 3 })
            .map((a) => JSON.stringify(a)),
        ),
        (classdef, units, dockets) => {
          const row = { classdef, power_units: units, dockets } as unknown as CensusRow
          expect(censusEntityType(classdef, units, dockets)).toBe(
            entityTypes({ census: row, roles: null, privateOnly: null }).primary,
          )
        },
      ),
      { numRuns: 500 },
    )
  })

  test.each(['carrier', 'private', 'forwarder'])(
    'entity_type=%s: full pages, each summary as its record says (docket holders too)',
    async (type) => {
      const { results } = await search(`q=co&entity_type=${type}&limit=50`)
      expect(results.length).toBeGreaterThan(0)
      for (const s of results.slice(0, 15)) {
        expect(s.entity_type).toBe(type)
        const rec = CarrierJson.parse(
          await (await ctx.get(`/v1/carrier/${s.dot_number}`, key)).json(),
        )
        expect(
          { e: s.entity_type, mc: s.mc_number, d: s.docket_numbers, st: s.status, n: s.legal_name },
          s.dot_number,
        ).toEqual({
          e: rec.entity_type,
          mc: rec.mc_number,
          d: rec.identity.docket_numbers,
          st: rec.identity.usdot_status,
          n: rec.legal_name,
        })
      }
    },
  )

  test('filters combine inside the index: every result passes all of them', async () => {
    const { results } = await search('q=tr&state=TX&status=active&entity_type=carrier&limit=50')
    expect(results.length).toBeGreaterThan(0)
    for (const r of results)
      expect([r.state, r.status, r.entity_type]).toEqual(['TX', 'active', 'carrier'])
  })
})

describe('word pairs in the census file', () => {
  test('the most common words are pair words; a several-word AND matches the same names with their pairs', () => {
    const words = pairWordsOf(census())
    expect(words.size).toBeGreaterThan(10)
    expect(words.has('trucking')).toBe(true)
    const names = census()
      .db.prepare(
        `SELECT legal_name FROM companies WHERE legal_name LIKE '% %' ORDER BY dot_number LIMIT 150`,
      )
      .all() as { legal_name: string }[]
    const texts = [
      ...names.map((r) => r.legal_name),
      ...names.slice(0, 50).map((r) => `${r.legal_name.split(' ')[0] ?? ''} TRUCKING T`),
    ]
    let paired = 0
    let staged = 0
    for (const text of texts) {
      const plain = splitLastWord(text)
      const withPairs = splitLastWord(text, words)
      if (!plain || !withPairs) continue
      if (withPairs.words.match !== plain.words.match) paired++
      if (withPairs.words.staged) staged++
      for (const status of [undefined, 'active', 'inactive'] as const)
        for (const [limit, budget] of READ_CASES)
          for (const k of ['words', 'whole'] as const) {
            const ids = (e: string | WordsMatch) =>
              nameCandidates(census(), e, limit, status, budget).map((c) => c.dot_number)
            const want = ids(plain[k])
            // FTS5 with the pair tags, then the staged read (its budget spent or not)
            expect(ids(withPairs[k].match), text).toEqual(want)
            expect(ids(withPairs[k]), text).toEqual(want)
          }
    }
    expect(paired).toBeGreaterThan(50)
    expect(staged).toBeGreaterThan(50)
  })
})

describe('filters most names pass, checked on the rows read', () => {
  const cols = (ws: string[]) =>
    `{legal_name dba_name} : (${ws.map((w) => `"${w}"`).join(' AND ')})`
  test.each([
    [['TRUCKING'], 'carrier', 'us', null],
    [['CO'], 'carrier', null, 'sttx'],
    [['SMITH', 'TRUCKING'], null, 'us', null],
    [['A'], 'carrier', 'us', 'sttx'],
    [['EXPRESS'], 'private', null, null],
  ] as const)(
    '%s entity %s country %s %s: the same names as the tags inside FTS5',
    (ws, entityType, country, state) => {
      const tags = [
        entityType && `"et${entityType}"`,
        country && `"ct${country}"`,
        state && `"${state}"`,
      ].filter(Boolean)
      const cheap = state ? `${cols([...ws])} AND tags : ("${state}")` : cols([...ws])
      const full = `${cols([...ws])} AND tags : (${tags.join(' AND ')})`
      const staged: WordsMatch = {
        match: full,
        staged: {
          match: cheap,
          phrases: [],
          ...(entityType ? { entityType } : {}),
          ...(country ? { country } : {}),
        },
      }
      for (const status of [undefined, 'active', 'inactive'] as const)
        for (const [limit, budget] of READ_CASES) {
          const want = nameCandidates(census(), full, limit, status).map((c) => c.dot_number)
          if (!status && limit === 5000) expect(want.length).toBeGreaterThan(0)
          expect(
            nameCandidates(census(), staged, limit, status, budget).map((c) => c.dot_number),
          ).toEqual(want)
        }
    },
  )

  test.each([
    'entity_type=carrier',
    'country=US',
    'entity_type=carrier&country=US&state=TX',
    'entity_type=carrier&status=inactive',
  ])('q=smith tr&%s: every result passes the filters', async (f) => {
    const { results } = await search(`q=smith%20tr&${f}&limit=50`)
    expect(results.length).toBeGreaterThan(0)
    for (const r of results) {
      if (f.includes('carrier')) expect(r.entity_type).toBe('carrier')
      if (f.includes('US')) expect(r.country).toBe('US')
      if (f.includes('TX')) expect(r.state).toBe('TX')
      if (f.includes('inactive')) expect(r.status).toBe('inactive')
    }
  })
})

describe('state + carrier: one tag', () => {
  const states = () =>
    (
      census()
        .db.prepare(
          `SELECT phy_state AS s FROM companies WHERE phy_state IS NOT NULL
           GROUP BY phy_state ORDER BY count(*) DESC LIMIT 6`,
        )
        .all() as { s: string }[]
    ).map((r) => r.s)

  test('sc<state> tags exactly the names tagged st<state> and etcarrier', () => {
    expect(tagKindsOf(census()).has('sc')).toBe(true)
    let matched = 0
    for (const st of states())
      for (const words of [null, '"trucking"', '"co"'])
        for (const status of [undefined, 'active', 'inactive'] as const) {
          const w = words ? `{legal_name dba_name} : (${words}) AND ` : ''
          const ids = (e: string) =>
            nameCandidates(census(), e, 100_000, status).map((c) => c.dot_number)
          const want = ids(`${w}tags : ("st${st.toLowerCase()}" AND "etcarrier")`)
          expect(ids(`${w}tags : ("sc${st.toLowerCase()}")`), `${st} ${words} ${status}`).toEqual(
            want,
          )
          matched += want.length
        }
    expect(matched).toBeGreaterThan(1000)
  })

  test('a file built without the tag (format 3) gets the same pages, checking the entity type per row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cvk-search-old-'))
    const path = join(dir, 'census.db')
    census().db.prepare('VACUUM INTO ?').run(path)
    const old = new Database(path)
    old.exec('DROP TABLE search_tag_kinds')
    old.close()
    const oldCensus = openActive('census', 'live', 999_999, path, null, null)
    const view = (c: ActiveDataset): DataView => ({
      source: 'mirror',
      versionKey: String(c.versionId),
      get: (n) => (n === 'census' ? c : null),
    })
    try {
      expect(tagKindsOf(oldCensus).has('sc')).toBe(false)
      let results = 0
      for (const st of states().slice(0, 3))
        for (const q of ['tr', 'smith tr', 'co', 'express'])
          for (const offset of [0, 40])
            for (const status of [undefined, 'active'] as const) {
              const p = {
                q,
                state: st,
                entity_type: 'carrier' as const,
                ...(status ? { status } : {}),
                limit: 50,
                offset,
                today: '2026-11-26',
              }
              const want = searchCompanies(view(census()), p)
              expect(searchCompanies(view(oldCensus), p), JSON.stringify(p)).toEqual(want)
              results += want.results.length
            }
      expect(results).toBeGreaterThan(500)
    } finally {
      oldCensus.db.close()
    }
  })
})

test('a read resumed where an earlier one stopped gives the rows of one longer read', () => {
  const words = pairWordsOf(census())
  const exprs: (string | WordsMatch)[] = [
    '{legal_name dba_name} : ("TRUCKING")',
    '{legal_name dba_name} : ("CO") AND tags : ("sttx")',
    ...['SMITH TRUCKING X', 'A TRUCKING LLC X'].map((q) => splitLastWord(q, words)?.words ?? ''),
    {
      match: '{legal_name dba_name} : ("TRUCKING") AND tags : ("etcarrier")',
      staged: { match: '{legal_name dba_name} : ("TRUCKING")', phrases: [], entityType: 'carrier' },
    },
  ]
  for (const e of exprs)
    for (const status of [undefined, 'active', 'inactive'] as const)
      for (const [a, b] of [
        [1, 1],
        [7, 30],
        [100, 900],
        [400, 650],
      ] as const) {
        const ids = (r: { dot_number: number }[]) => r.map((c) => c.dot_number)
        const whole = ids(nameCandidates(census(), e, a + b, status))
        const from: ReadPosition = { tier: 0, after: 0 }
        const first = ids(nameCandidates(census(), e, a, status, undefined, from))
        const rest = ids(nameCandidates(census(), e, b, status, undefined, from))
        expect([...first, ...rest], JSON.stringify([e, status, a])).toEqual(whole)
      }
})

test("the names holding the last word whole, taken from a complete read of the other words, are FTS5's", () => {
  const words = pairWordsOf(census())
  const names = census()
    .db.prepare(
      `SELECT legal_name, dba_name FROM companies WHERE legal_name LIKE '% %' AND dot_number % 7 = 0
       ORDER BY dot_number LIMIT 120`,
    )
    .all() as { legal_name: string; dba_name: string | null }[]
  const texts = [
    ...names.map((r) => r.legal_name),
    ...names.flatMap((r) => (r.dba_name?.includes(' ') ? [r.dba_name] : [])),
    ...names.slice(0, 30).map((r) => `${r.legal_name.split(' ')[0] ?? ''} TRUCKING LLC`),
    // an accented last word: FTS5 checks it on each row (it folds Ü to U)
    ...names.slice(0, 30).map((r) => `${r.legal_name.split(' ')[0] ?? ''} TRÜCKING`),
  ]
  let held = 0
  let accented = 0
  for (const text of texts) {
    const split = splitLastWord(text, words)
    if (!split) continue
    for (const status of [undefined, 'active', 'inactive'] as const) {
      const dots = (r: { dot_number: number }[]) => r.map((c) => c.dot_number)
      const want = dots(nameCandidates(census(), split.whole, 100_000, status))
      const all = nameCandidates(census(), split.words, 100_000, status)
      const got = dots(all.filter((r) => holdsWords(census(), r, [split.lastWord])))
      expect(got, `${text} ${status}`).toEqual(want)
      held += got.length
      if (text.endsWith('TRÜCKING')) accented += got.length
    }
  }
  expect(held).toBeGreaterThan(100)
  expect(accented).toBeGreaterThan(0)
})

/** Whether a name holds a word starting with `letter`. */
const holdsLetter = (r: { legal_name: string | null; dba_name: string | null }, letter: string) =>
  [...words(r.legal_name), ...words(r.dba_name)].some((w) => w.startsWith(letter))

/**
 * `<common word> <letter>` searches (a pair word: in 1 name in 150 or more, and the first
 * keystroke of the next word) whose first block does not read all the word's matches: the rows
 * it reads (all of them when few names hold the word, else 2 rows per wanted match), and those
 * holding the letter.
 */
function* oneLetterSearches() {
  const pairs = pairWordsOf(census())
  for (const first of [...pairs].filter((w) => /^[a-z]{2,}$/.test(w)))
    for (const letter of 'ABCDEFGHIJKLMNOPRSTW') {
      const text = `${first.toUpperCase()} ${letter}`
      const split = splitLastWord(text, pairs)
      if (!split) throw new Error(text)
      const n = namesHoldingAtMost(census(), [first]) <= CANDIDATES ? CANDIDATES + 1 : 400
      const read = nameCandidates(census(), split.words, n)
      if (read.length < n) continue // all read: the list is complete, FTS5 is not asked
      const kept = read.filter((r) => holdsLetter(r, letter))
      yield { first: first.toUpperCase(), letter, text, split, n, read, kept }
    }
}

test('a one-letter last word: its holders come from the rows the other words read, not from a read of their own', async () => {
  let checked = 0
  for (const { first, letter, text, read, kept } of oneLetterSearches()) {
    if (kept.length <= 20) continue // page 1 is not full from the first block
    const seen = new Set(read.map((r) => r.dot_number))
    const { results } = await search(`q=${encodeURIComponent(text)}&limit=20`)
    expect(results.length).toBe(20)
    for (const r of results) {
      expect(holdsLetter(r, letter)).toBe(true)
      // read by the first block, or a leading match (read wherever it sits)
      expect(
        seen.has(Number(r.dot_number)) ||
          [r.legal_name, r.dba_name].some((n) => words(n)[0] === first),
        `${text}: ${r.dot_number} ${r.legal_name} / ${r.dba_name}`,
      ).toBe(true)
    }
    checked++
  }
  expect(checked).toBeGreaterThan(5)
})

test('a one-letter last word: the rows the first block read are its whole list, however few match', () => {
  let checked = 0
  let beyond = 0
  for (const { first, letter, text, split, n, read, kept } of oneLetterSearches()) {
    // the names a second block (up to CANDIDATES rows) would have added
    beyond += nameCandidates(census(), split.words, CANDIDATES)
      .slice(n)
      .filter((r) => holdsLetter(r, letter)).length
    // every page a cursor reaches
    const listed: number[] = []
    for (let offset: number | null = 0; offset !== null;) {
      const page = searchCompanies(ctx.deps.datasets.view('live'), {
        q: text,
        limit: 50,
        offset,
        today: '2026-11-27',
      })
      listed.push(
        ...page.results.filter((r) => r.match === 'name').map((r) => Number(r.dot_number)),
      )
      offset = page.nextOffset
    }
    const seen = new Set(read.map((r) => r.dot_number))
    const leading = (dot: number) => {
      const c = findCensusRow(census(), dot)
      return [c?.legal_name ?? null, c?.dba_name ?? null].some((name) => words(name)[0] === first)
    }
    // the rows read that hold the letter (the first FIRST_BLOCK of them), and no row past them
    // but a leading match
    expect(listed, text).toEqual(
      expect.arrayContaining(kept.slice(0, FIRST_BLOCK).map((r) => r.dot_number)),
    )
    for (const dot of listed) expect(seen.has(dot) || leading(dot), `${text}: ${dot}`).toBe(true)
    checked++
  }
  expect(checked).toBeGreaterThan(5)
  // a second block would have found more: the rule is what keeps them out
  expect(beyond).toBeGreaterThan(0)
})

describe('several words: how the matches are read depends on how many names hold them, never what they are', () => {
  const tokens = (s: string | null) =>
    (s ?? '')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
  /** every name match of q, over all the pages a cursor reaches */
  const allMatches = (q: string): number[] => {
    const view = ctx.deps.datasets.view('live')
    const out: number[] = []
    for (let offset: number | null = 0; offset !== null;) {
      const page = searchCompanies(view, { q, limit: 50, offset, today: '2026-11-27' })
      out.push(...page.results.filter((r) => r.match === 'name').map((r) => Number(r.dot_number)))
      offset = page.nextOffset
    }
    return out
  }
  const names = () =>
    census().db.prepare('SELECT dot_number, legal_name, dba_name FROM companies').all() as {
      dot_number: number
      legal_name: string | null
      dba_name: string | null
    }[]
  /** the names holding `word` and a word starting with `prefix` (ASCII names: their tokens) */
  const holders = (word: string, prefix: string) =>
    names()
      .filter((r) => {
        const t = [...tokens(r.legal_name), ...tokens(r.dba_name)]
        return t.includes(word) && t.some((x) => x.startsWith(prefix))
      })
      .map((r) => r.dot_number)
      .sort((a, b) => a - b)

  test('a last word with few completions (FTS5 reads them with the other words) finds every holder', () => {
    const c = census()
    // the most common words (more names than a first block reads) and some held by fewer
    const words = [...pairWordsOf(c)]
      .filter((w) => /^[a-z]{3,}$/.test(w))
      .map((w) => ({ w, n: namesHoldingAtMost(c, [w]) }))
      .sort((a, b) => b.n - a.n)
      .filter((_, i) => i < 4 || i % 10 === 0)
      .map((x) => x.w)
    expect(namesHoldingAtMost(c, [words[0] ?? ''])).toBeGreaterThan(CANDIDATES)
    // completions of 3-letter prefixes of the data's words: few terms, few names at this scale
    const prefixes = (
      c.db
        .prepare(
          `SELECT DISTINCT substr(term, 1, 3) AS p FROM search_terms
           WHERE length(term) >= 5 AND term GLOB '[a-z]*' AND docs BETWEEN 3 AND 40 LIMIT 15`,
        )
        .all() as { p: string }[]
    ).map((r) => r.p)
    let checked = 0
    let found = 0
    for (const word of words)
      for (const prefix of prefixes) {
        if (!rareCompletions(prefix, prefixTerms(c, prefix))) continue
        const want = holders(word, prefix)
        if (want.length > 1000) continue // beyond what paging reaches
        const got = allMatches(`${word.toUpperCase()} ${prefix.toUpperCase()}`).sort(
          (a, b) => a - b,
        )
        expect(got, `${word} ${prefix}`).toEqual(want)
        checked++
        found += got.length
      }
    expect(checked).toBeGreaterThan(20)
    expect(found).toBeGreaterThan(20)
  })

  test('a prefix with many completions (checked on the names read) finds every holder too', () => {
    const c = census()
    const rare = (
      c.db
        .prepare(
          `SELECT term FROM search_terms WHERE docs BETWEEN 20 AND 300 AND term GLOB '[a-z][a-z][a-z]*'
           ORDER BY docs DESC LIMIT 12`,
        )
        .all() as { term: string }[]
    ).map((r) => r.term)
    let checked = 0
    for (const word of rare)
      for (const prefix of ['s', 'c', 'tr', 'l']) {
        expect(rareCompletions(prefix, prefixTerms(c, prefix)), prefix).toBeNull()
        // the other word is held by few names: the first block reads them all
        expect(namesHoldingAtMost(c, [word])).toBeLessThanOrEqual(CANDIDATES)
        const want = holders(word, prefix)
        const got = allMatches(`${word.toUpperCase()} ${prefix.toUpperCase()}`).sort(
          (a, b) => a - b,
        )
        expect(got, `${word} ${prefix}`).toEqual(want)
        checked += want.length > 0 ? 1 : 0
      }
    expect(checked).toBeGreaterThan(10)
  })

  test('rareCompletions: every term of a prefix when they are few and rare, else null', () => {
    const c = census()
    const all = (p: string) =>
      (
        c.db
          .prepare(`SELECT term FROM search_terms WHERE term >= ? AND term < ? || char(1114111)`)
          .all(p, p) as { term: string }[]
      ).map((r) => r.term)
    expect(rareCompletions('t', prefixTerms(c, 't'))).toBeNull() // far more than 16 terms
    let some = 0
    for (const p of ['zqx', 'xyl', 'qua', 'kal', 'flok', 'podr', 'gaan']) {
      const terms = all(p)
      const got = rareCompletions(p, prefixTerms(c, p))
      if (terms.length > 16) expect(got, p).toBeNull()
      else {
        expect(new Set(got), p).toEqual(new Set([p, ...terms]))
        some++
      }
    }
    expect(some).toBeGreaterThan(2)
  })
})
