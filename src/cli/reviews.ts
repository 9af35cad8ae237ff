/** `carrier-verify reviews …`: verified reviews and external review aggregates (the record's reviews block). */
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { findCensusRow } from '../census/read.ts'
import { isoDate } from '../clock.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { getLicensing } from '../licensing/record.ts'
import { detectFormat, importReviews, readReviewsFile, ReviewFileError } from '../reviews/import.ts'
import {
  addReview,
  externalInput,
  issuesText,
  listExternalReviews,
  listReviews,
  removeExternalReviews,
  removeReview,
  reviewInput,
  setExternalReviews,
  Usdot,
  type ExternalAggregate,
  type StoredReview,
} from '../reviews/reviews.ts'
import { Id, iso, json, parse, table, UsageError, type CommandSpec, type Io } from './io.ts'

const reviewJson = (r: StoredReview) => ({
  id: r.id,
  dot_number: String(r.dotNumber),
  stars: r.stars,
  title: r.title,
  text: r.text,
  date: r.date,
  experience_type: r.experienceType,
  author: r.author,
  source: r.source,
  external_id: r.externalId,
  created_at: iso(r.createdAt),
})

const externalJson = (e: ExternalAggregate) => ({
  dot_number: String(e.dotNumber),
  source: e.source,
  overall_rating: e.overallRating,
  total_reviews: e.totalReviews,
  latest_review:
    e.latestReviewDate === null && e.latestReviewText === null
      ? null
      : { date: e.latestReviewDate, text: e.latestReviewText },
  updated_at: iso(e.updatedAt),
})

const today = (deps: Deps) => isoDate(deps.clock())

/** Parses with a zod schema; a failure is a usage error with every problem on one line. */
function valid<S extends z.ZodType>(schema: S, values: unknown): z.infer<S> {
  const r = schema.safeParse(values)
  if (!r.success) throw new UsageError(issuesText(r.error))
  return r.data
}

/**
 * A check that a USDOT is known to the live mirror (census or licensing), or null when there is
 * no live census to check against yet (a fresh appliance): then every USDOT is accepted.
 */
function dotChecker(deps: Deps): ((dot: number) => string | null) | null {
  const census = deps.datasets.get('census', 'live')
  if (!census) return null
  const view = deps.datasets.view('live')
  const day = today(deps)
  return (dot) =>
    findCensusRow(census, dot) !== null || getLicensing(view, dot, day) !== null
      ? null
      : `USDOT ${dot} is not in the census or licensing data (--force adds it anyway)`
}

const MAX_REPORTED = 100

function reportRowErrors(io: Io, errors: { location: string; message: string }[]): void {
  for (const e of errors.slice(0, MAX_REPORTED)) io.stderr(`${e.location}: ${e.message}\n`)
  if (errors.length > MAX_REPORTED) io.stderr(`… and ${errors.length - MAX_REPORTED} more\n`)
}

const DOT_OPTION = { dot: { type: 'string' }, json: { type: 'boolean' } } as const

export const reviewsCommands: CommandSpec[] = [
  {
    name: 'reviews add',
    usage:
      'reviews add --dot N --stars 1-5 --experience payment|dispatch|delivery|communication|claims|other [--title T] [--text T] [--date YYYY-MM-DD] [--author A] [--force] [--json]',
    summary:
      'add a verified review (shown in the record and used by the Trust Score); the date defaults to today',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        dot: { type: 'string' },
        stars: { type: 'string' },
        experience: { type: 'string' },
        title: { type: 'string' },
        text: { type: 'string' },
        date: { type: 'string' },
        author: { type: 'string' },
        force: { type: 'boolean' },
        json: { type: 'boolean' },
      })
      const deps = ctx.deps()
      const day = today(deps)
      const input = valid(reviewInput(day), { ...values, experience_type: values.experience })
      const problem = values.force ? null : (dotChecker(deps)?.(input.dot) ?? null)
      if (problem) throw new AppError('not_found', problem)
      const r = addReview(deps.db, input, { now: deps.clock().getTime(), today: day })
      ctx.io.stdout(values.json ? json(reviewJson(r)) : `${r.id}\n`)
      ctx.io.stderr(
        `Added review ${r.id} for USDOT ${r.dotNumber}: ${r.stars} stars, ${r.experienceType}, ${r.date}\n`,
      )
      return 0
    },
  },
  {
    name: 'reviews import',
    usage:
      'reviews import FILE.csv|FILE.json|- [--format csv|json] [--source NAME] [--skip-invalid] [--dry-run] [--force] [--json]',
    summary:
      'import verified reviews (columns dot, stars, experience_type, date, title, text, author, id); every row is checked first and nothing is imported if any row is invalid, unless --skip-invalid; re-importing a file never duplicates reviews',
    async run(argv, ctx) {
      const { values, positionals } = parse(
        argv,
        {
          format: { type: 'string' },
          source: { type: 'string' },
          'skip-invalid': { type: 'boolean' },
          'dry-run': { type: 'boolean' },
          force: { type: 'boolean' },
          json: { type: 'boolean' },
        },
        true,
      )
      if (positionals.length !== 1)
        throw new UsageError('give one file: reviews import FILE.csv|FILE.json (- for stdin)')
      const file = positionals[0] ?? '-'
      const format =
        values.format === undefined ? null : valid(z.enum(['csv', 'json']), values.format)
      const source = valid(
        z
          .string()
          .trim()
          .regex(
            /^[A-Za-z0-9][\w.:-]{0,63}$/,
            'source must be a short name (letters, digits, . _ : -)',
          ),
        values.source ?? 'import',
      )
      let content: string
      try {
        content = file === '-' ? await ctx.io.readStdin() : readFileSync(file, 'utf8')
      } catch (err) {
        throw new Error(
          `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
        )
      }
      let rows
      try {
        rows = readReviewsFile(content, format ?? detectFormat(file, content))
      } catch (err) {
        if (err instanceof ReviewFileError) throw new Error(`${file}: ${err.message}`)
        throw err
      }
      const deps = ctx.deps()
      const checker = values.force ? null : dotChecker(deps)
      if (!values.force && !checker)
        ctx.io.stderr('No live census is loaded yet: USDOT numbers are not checked.\n')
      const r = importReviews(deps.db, rows, {
        now: deps.clock().getTime(),
        today: today(deps),
        source,
        skipInvalid: values['skip-invalid'] === true,
        dryRun: values['dry-run'] === true,
        checkDot: checker ?? undefined,
      })
      reportRowErrors(ctx.io, r.failed)
      const result = {
        file,
        source,
        rows: r.rows,
        valid: r.valid,
        invalid: r.failed.length,
        inserted: r.inserted,
        updated: r.updated,
        unchanged: r.unchanged,
        imported: r.written,
        dry_run: values['dry-run'] === true,
        errors: r.failed,
      }
      ctx.io.stdout(
        values.json
          ? json(result)
          : `${r.rows} rows: ${r.valid} valid, ${r.failed.length} invalid; ${r.inserted} inserted, ${r.updated} updated, ${r.unchanged} unchanged\n`,
      )
      if (r.failed.length > 0 && !r.written && !values['dry-run'])
        ctx.io.stderr(
          'Nothing was imported: fix the rows above and run again (re-running is safe), or pass --skip-invalid to import the valid rows.\n',
        )
      else if (r.failed.length > 0 && r.written)
        ctx.io.stderr(
          `Imported the valid rows; ${r.failed.length} invalid rows were skipped. Fix them and run again: rows already imported are not duplicated.\n`,
        )
      return r.failed.length > 0 ? 1 : 0
    },
  },
  {
    name: 'reviews list',
    usage: 'reviews list --dot N [--json]',
    summary: 'list a company’s verified reviews (with ids) and external aggregates',
    async run(argv, ctx) {
      const { values } = parse(argv, DOT_OPTION)
      const { dot } = valid(z.object({ dot: Usdot }), values)
      const deps = ctx.deps()
      const reviews = listReviews(deps.db, dot).map(reviewJson)
      const external = listExternalReviews(deps.db, dot).map(externalJson)
      const avg = reviews.length
        ? Math.round((reviews.reduce((n, r) => n + r.stars, 0) / reviews.length) * 100) / 100
        : null
      const summary = { average: avg, count: reviews.length }
      if (values.json) {
        ctx.io.stdout(json({ dot_number: String(dot), summary, verified: reviews, external }))
        return 0
      }
      ctx.io.stdout(
        `${table(reviews, ['id', 'date', 'stars', 'experience_type', 'title', 'author', 'source'])}` +
          `average ${avg ?? '-'} over ${reviews.length} reviews\n\nexternal:\n` +
          table(
            external.map((e) => ({ ...e, latest_review_date: e.latest_review?.date ?? null })),
            ['source', 'overall_rating', 'total_reviews', 'latest_review_date', 'updated_at'],
          ),
      )
      return 0
    },
  },
  {
    name: 'reviews remove',
    usage: 'reviews remove ID [--json]',
    summary: 'delete one verified review (ids from reviews list)',
    async run(argv, ctx) {
      const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
      if (positionals.length !== 1) throw new UsageError('give one review id')
      const id = valid(Id, positionals[0])
      const r = removeReview(ctx.deps().db, id)
      if (!r) throw new AppError('not_found', `no review ${id}`)
      ctx.io.stdout(values.json ? json(reviewJson(r)) : `${r.id}\n`)
      ctx.io.stderr(`Removed review ${r.id} of USDOT ${r.dotNumber}\n`)
      return 0
    },
  },
  {
    name: 'reviews external',
    usage:
      'reviews external set --dot N --source NAME --rating 0-5 --total N [--latest-date YYYY-MM-DD] [--latest-text T] [--json] | reviews external remove --dot N --source NAME [--json]',
    summary:
      'set (create or replace) or remove an external platform’s aggregate rating for a company',
    async run(argv, ctx) {
      const [sub, ...rest] = argv
      const deps = () => ctx.deps()
      if (sub === 'set') {
        const { values } = parse(rest, {
          ...DOT_OPTION,
          source: { type: 'string' },
          rating: { type: 'string' },
          total: { type: 'string' },
          'latest-date': { type: 'string' },
          'latest-text': { type: 'string' },
        })
        const d = deps()
        const input = valid(externalInput(today(d)), {
          ...values,
          latest_date: values['latest-date'],
          latest_text: values['latest-text'],
        })
        const e = setExternalReviews(d.db, input, d.clock().getTime())
        ctx.io.stdout(values.json ? json(externalJson(e)) : `${e.source}\n`)
        ctx.io.stderr(
          `Set ${e.source} for USDOT ${e.dotNumber}: ${e.overallRating ?? '-'} over ${e.totalReviews} reviews\n`,
        )
        return 0
      }
      if (sub === 'remove') {
        const { values } = parse(rest, { ...DOT_OPTION, source: { type: 'string' } })
        const { dot, source } = valid(
          externalInput('9999-12-31').pick({ dot: true, source: true }),
          values,
        )
        const e = removeExternalReviews(deps().db, dot, source)
        if (!e) throw new AppError('not_found', `no ${source} aggregate for USDOT ${dot}`)
        ctx.io.stdout(values.json ? json(externalJson(e)) : `${e.source}\n`)
        ctx.io.stderr(`Removed ${e.source} for USDOT ${e.dotNumber}\n`)
        return 0
      }
      throw new UsageError(
        `unknown reviews external command ${JSON.stringify(sub ?? '')}: set or remove`,
      )
    },
  },
]
