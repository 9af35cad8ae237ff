import Database from 'better-sqlite3'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { namePairTags, pairTag } from '../census/search-index.ts'
import {
  holdsPhrases,
  normalizeName,
  pairCondition,
  queryWords,
  splitLastWord,
  toFtsQuery,
  toLeadingFtsQuery,
} from './fts.ts'

const none = () => []
const COLS = '{legal_name dba_name}'

describe('toFtsQuery: user text is never FTS syntax', () => {
  test('every word is a quoted phrase; the last one matches itself or its expansions', () => {
    expect(toFtsQuery('acme tr', none)).toBe(`${COLS} : ("acme" AND "tr")`)
    expect(toFtsQuery('ACME TRU', () => ['truck', 'trucking'])).toBe(
      `${COLS} : ("ACME" AND ("tru" OR "truck" OR "trucking"))`,
    )
    // the expansion already holding the word does not repeat it
    expect(toFtsQuery('acme truck', () => ['trucking', 'truck'])).toBe(
      `${COLS} : ("acme" AND ("truck" OR "trucking"))`,
    )
  })

  test.each([
    ['AND', `${COLS} : ("and")`],
    ['acme OR', `${COLS} : ("acme" AND "or")`],
    ['NEAR(acme', `${COLS} : ("near acme")`],
    ['a"b"c', `${COLS} : ("a b c")`],
    ['legal_name:acme', `${COLS} : ("legal name acme")`],
    ['acme* -x', `${COLS} : ("acme*" AND "x")`],
  ])('%s stays text', (q, expected) => {
    expect(toFtsQuery(q, none)).toBe(expected)
  })

  test('the prefix is folded before expansion: accents and case do not matter', () => {
    const seen: string[] = []
    toFtsQuery('ÉLIT', (p) => (seen.push(p), []))
    toFtsQuery('Acmé T', (p) => (seen.push(p), []))
    expect(seen).toEqual(['elit', 't'])
  })

  test("a letter NFKD cannot fold (ł, ø) uses FTS5's own prefix matching", () => {
    expect(toFtsQuery('łódź', () => ['never'])).toBe(`${COLS} : ("łódź"*)`)
  })

  test('a punctuated last word keeps its head in the phrase', () => {
    expect(toFtsQuery("o'brie", () => ['brien'])).toBe(`${COLS} : (("o brie" OR "o brien"))`)
    expect(toFtsQuery('at&t', () => ['trucking'])).toBe(`${COLS} : (("at t" OR "at trucking"))`)
  })

  test('words without letters or digits are ignored; nothing left → null', () => {
    expect(queryWords('acme & - trucking')).toEqual(['acme', 'trucking'])
    expect(toFtsQuery('& - "', none)).toBeNull()
    expect(toFtsQuery('acme & -', none)).toBe(`${COLS} : ("acme")`)
    expect(queryWords('a b c d e f g h i j')).toHaveLength(8)
  })

  test('every generated query is valid FTS5 for hostile input', () => {
    const db = new Database(':memory:')
    db.exec(
      "CREATE VIRTUAL TABLE companies_fts USING fts5(legal_name, dba_name, tags, tokenize='unicode61 remove_diacritics 2')",
    )
    db.prepare('INSERT INTO companies_fts VALUES (?, ?, ?)').run('ACME TRUCKING', null, 'sttx')
    const stmt = db.prepare('SELECT rowid FROM companies_fts WHERE companies_fts MATCH ?')
    for (const q of [
      'AND',
      'OR acme',
      'NOT acme',
      'NEAR(acme trucking, 2)',
      'acme*',
      '*',
      '^acme',
      '"acme',
      'acme"',
      '""',
      '{legal_name}: acme',
      'legal_name : acme',
      'acme + trucking',
      '(acme)',
      'acme) OR (x',
      '\u0000acme',
      'ａｃｍｅ',
      'ACMÉ',
      '🚚 acme',
    ]) {
      const m = toFtsQuery(q, (p) => [p])
      if (m !== null) expect(() => stmt.all(m), q).not.toThrow()
    }
    db.close()
  })
})

describe('toLeadingFtsQuery: names that start with the text', () => {
  test('one token: the first-word tags of the token and its expansions', () => {
    expect(toLeadingFtsQuery('TRU', () => ['truck', 'trucking'])).toBe(
      'tags : ("fwtru" OR "fwtruck" OR "fwtrucking")',
    )
  })
  test('more tokens: the first word tag, then the whole text as the leading phrase', () => {
    expect(toLeadingFtsQuery('Acmé tr', () => ['trucking'])).toBe(
      `tags : "fwacme" AND ${COLS} : (^"acme tr" OR ^"acme trucking")`,
    )
    expect(toLeadingFtsQuery("o'brien", none)).toBe(`tags : "fwo" AND ${COLS} : (^"o brien")`)
  })
  test('no token, or a last letter NFKD cannot fold: null', () => {
    expect(toLeadingFtsQuery('& -', none)).toBeNull()
    expect(toLeadingFtsQuery('łódź', none)).toBeNull()
  })
  test('hostile input is still valid FTS5', () => {
    const db = new Database(':memory:')
    db.exec(
      "CREATE VIRTUAL TABLE f USING fts5(legal_name, dba_name, tags, content='', tokenize='unicode61 remove_diacritics 2')",
    )
    db.prepare('INSERT INTO f (rowid, legal_name, dba_name, tags) VALUES (1, ?, ?, ?)').run(
      'ACME TRUCKING',
      null,
      'sttx fwacme',
    )
    const stmt = db.prepare('SELECT rowid FROM f WHERE f MATCH ?')
    for (const q of [
      'AND',
      'NEAR(acme',
      '"acme',
      'acme"',
      '^acme',
      '{tags}: x',
      'a"b',
      'ＡＣＭＥ tr',
    ])
      expect(() => stmt.all(toLeadingFtsQuery(q, (p) => [p, `${p}x`])), q).not.toThrow()
    expect(stmt.all(toLeadingFtsQuery('acme tru', () => ['trucking']))).toEqual([{ rowid: 1 }])
    expect(stmt.all(toLeadingFtsQuery('trucking', none))).toEqual([])
    db.close()
  })
})

test('normalizeName folds accents, case and punctuation', () => {
  expect(normalizeName('  Acmé  Trucking, L.L.C. ')).toBe('ACME TRUCKING L L C')
  expect(normalizeName("O'Brien & Sons")).toBe('O BRIEN SONS')
})

describe('word pairs: an extra condition that never changes the matches', () => {
  const pairWords = new Set(['smith', 'trucking', 'and', 'express', 'd', 'e'])
  // the build matches upper-case tokens
  const upper = (ws: Set<string>) => new Set([...ws].map((w) => w.toUpperCase()))
  const cond = (a: string, b: string) => `tags : ("${pairTag(a, b)}" OR "pwany")`

  test('a pair tag is the same whichever word comes first', () => {
    expect(pairTag('smith', 'and')).toBe(pairTag('and', 'smith'))
    expect(pairTag('ab', 'c')).not.toBe(pairTag('a', 'bc'))
  })

  test('the tags of a name: every pair of the pair words it holds, legal and DBA together', () => {
    expect(namePairTags(upper(pairWords), 'SMITH TRUCKING LLC', null)).toBe(
      pairTag('smith', 'trucking'),
    )
    expect(namePairTags(upper(pairWords), 'Smith trucking', null)).toBe(
      pairTag('smith', 'trucking'),
    )
    expect(namePairTags(upper(pairWords), 'SMITH-SMITH INC', 'EXPRESS').split(' ').sort()).toEqual(
      [pairTag('smith', 'express')].sort(),
    )
    expect(namePairTags(upper(pairWords), 'D&E', 'AND TRUCKING').split(' ')).toHaveLength(6)
    expect(namePairTags(upper(pairWords), 'SMITH LLC', null)).toBe('')
    expect(namePairTags(upper(pairWords), null, null)).toBe('')
    // tokens only FTS5 knows exactly: every pair
    expect(namePairTags(upper(pairWords), 'SMÏTH TRUCKING', null)).toBe('pwany')
  })

  test('the one-pass tokenizer gives the tags of splitting on non-alphanumerics, on 20,000 random names', () => {
    // the reference: the regular-expression version the build used before (same words, same order)
    const reference = (words: ReadonlySet<string>, legal: string | null, dba: string | null) => {
      const text = dba === null ? (legal ?? '') : `${legal ?? ''} ${dba}`
      if (/\P{ASCII}/u.test(text)) return 'pwany'
      const held: string[] = []
      for (const raw of text.split(/[^A-Za-z0-9]+/)) {
        const t = raw.toUpperCase()
        if (words.has(t) && !held.includes(t)) held.push(t)
      }
      const tags: string[] = []
      for (let i = 0; i < held.length; i++)
        for (let j = i + 1; j < held.length; j++)
          tags.push(pairTag((held[i] as string).toLowerCase(), (held[j] as string).toLowerCase()))
      return tags.join(' ')
    }
    const words = upper(pairWords)
    const pieces = [
      ...pairWords,
      ...[...pairWords].map((w) => w.toLowerCase()),
      'Smith',
      'x9',
      '7',
      '-',
      ' ',
      '  ',
      '&',
      "'",
      '.',
      ',',
      '"',
      '#',
      'É',
      'ß',
      '🚚',
      '\t',
    ]
    let seed = 17
    // a 32-bit LCG (Math.imul keeps it exact), the high bits first
    const next = () => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) >>> 8
    const name = () =>
      Array.from({ length: next() % 7 }, () => pieces[next() % pieces.length] as string).join(
        next() % 3 === 0 ? '' : ' ',
      )
    let withTags = 0
    for (let k = 0; k < 20_000; k++) {
      const legal = next() % 10 === 0 ? null : name()
      const dba = next() % 3 === 0 ? name() : null
      const got = namePairTags(words, legal, dba)
      expect(got, `${legal} / ${dba}`).toBe(reference(words, legal, dba))
      if (got !== '' && got !== 'pwany') withTags++
    }
    expect(withTags).toBeGreaterThan(1_000)
  })

  test('a query: disjoint pairs of its pair words (ASCII words only), or none', () => {
    expect(pairCondition(['SMITH'], pairWords)).toBeNull()
    expect(pairCondition(['SMITH', 'JONES'], pairWords)).toBeNull()
    expect(pairCondition(['Smith', 'TRUCKING'], pairWords)).toBe(cond('smith', 'trucking'))
    expect(pairCondition(['SMÏTH', 'TRUCKING'], pairWords)).toBeNull()
    expect(pairCondition(['D&E'], pairWords)).toBe(cond('d', 'e'))
    expect(pairCondition(['SMITH', 'EXPRESS', 'AND', 'TRUCKING', 'INC'], pairWords)).toBe(
      `${cond('and', 'express')} AND ${cond('smith', 'trucking')}`,
    )
    expect(pairCondition(['SMITH', 'EXPRESS', 'TRUCKING'], pairWords)).toBe(
      `${cond('express', 'smith')} AND ${cond('smith', 'trucking')}`,
    )
  })

  test('splitLastWord adds the pairs of its words to each expression', () => {
    const pair = cond('smith', 'trucking')
    expect(splitLastWord('SMITH TRUCKING EX', pairWords)).toEqual({
      words: {
        match: `${pair} AND ${COLS} : ("SMITH" AND "TRUCKING")`,
        staged: { match: pair, phrases: [['smith'], ['trucking']] },
      },
      whole: {
        match: `${pair} AND ${COLS} : ("SMITH" AND "TRUCKING" AND "EX")`,
        staged: { match: `${pair} AND ${COLS} : ("EX")`, phrases: [['smith'], ['trucking']] },
      },
      last: 'EX',
      lastWord: 'EX',
    })
    expect(splitLastWord('SMITH TRUCKING EX')?.words).toEqual({
      match: `${COLS} : ("SMITH" AND "TRUCKING")`,
      staged: null,
    })
    // a non-ASCII word: FTS5 alone (with the pairs of the ASCII words)
    expect(splitLastWord('SMÏTH D&E TRUCKING X', pairWords)?.words.staged).toBeNull()
    expect(splitLastWord('D&E TRUCKING X', pairWords)?.words.staged?.phrases).toEqual([
      ['d', 'e'],
      ['trucking'],
    ])
  })

  test('holdsPhrases: each run of tokens in the legal or the DBA name; null beyond ASCII', () => {
    expect(holdsPhrases([['d', 'e'], ['trucking']], 'D&E LLC', 'TRUCKING CO')).toBe(true)
    expect(holdsPhrases([['d', 'e']], 'E&D LLC', null)).toBe(false)
    expect(holdsPhrases([['d', 'e']], 'D LLC', 'E')).toBe(false)
    expect(holdsPhrases([['smith']], 'SMITHS', null)).toBe(false)
    expect(holdsPhrases([['smith']], 'SMÏTH', 'SMITH')).toBeNull()
  })

  test('on real FTS5: the same names match with and without the pair condition', () => {
    const vocab = ['smith', 'trucking', 'and', 'express', 'd', 'e', 'jones', 'Ïce', 'co']
    const words = new Set(['smith', 'trucking', 'and', 'express', 'd', 'e', 'co'])
    const word = fc.constantFrom(...vocab, 'SMITH', 'Smith', 'TRÜCKING', 'ﬁre', '1st')
    const sep = fc.constantFrom(' ', '&', '-', ', ', "'", ' & ')
    const name = fc.option(
      fc
        .array(fc.tuple(word, sep), { minLength: 1, maxLength: 5 })
        .map((ws) => ws.map(([w, s]) => w + s).join('')),
    )
    const db = new Database(':memory:')
    db.exec(
      "CREATE VIRTUAL TABLE f USING fts5(legal_name, dba_name, tags, content='', tokenize='unicode61 remove_diacritics 2', columnsize=0)",
    )
    const insert = db.prepare(
      'INSERT INTO f (rowid, legal_name, dba_name, tags) VALUES (?, ?, ?, ?)',
    )
    const ids = (q: string) =>
      (db.prepare('SELECT rowid AS r FROM f WHERE f MATCH ?').all(q) as { r: number }[]).map(
        (x) => x.r,
      )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, name), { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(word, fc.constantFrom('', '&', '-')), { minLength: 2, maxLength: 4 }),
        (names, qs) => {
          db.exec("INSERT INTO f(f) VALUES ('delete-all')")
          names.forEach(([l, d], i) => insert.run(i + 1, l, d, namePairTags(upper(words), l, d)))
          const text = `${qs.map(([w, s]) => w + s).join(' ')} x`
          const plain = splitLastWord(text)
          const paired = splitLastWord(text, words)
          if (!plain || !paired) return
          for (const k of ['words', 'whole'] as const) {
            const want = ids(plain[k].match)
            expect(ids(paired[k].match), paired[k].match).toEqual(want)
            // the staged read: the cheap stage, then the phrases on the names (FTS5 beyond ASCII)
            const staged = paired[k].staged
            if (!staged) continue
            const kept = ids(staged.match).filter((r) => {
              const [l, d] = names[r - 1] ?? [null, null]
              return holdsPhrases(staged.phrases, l, d) ?? ids(paired[k].match).includes(r)
            })
            expect(kept, staged.match).toEqual(want)
          }
        },
      ),
      { numRuns: 300 },
    )
    db.close()
  })
})
