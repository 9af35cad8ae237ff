/**
 * Regenerates the bundled sample dataset: `npx tsx scripts/generate-sample.ts [outDir=data/sample]`.
 * Deterministic: the same seed always writes the same bytes. data/sample/README.md is hand-written.
 */
import { writeSampleDataset } from '../tools/generate/dataset.ts'

const outDir = process.argv[2] ?? 'data/sample'
const result = await writeSampleDataset(outDir)
for (const [key, file] of Object.entries(result.files))
  process.stderr.write(`${file.path}\t${file.rows} rows\t(${key})\n`)
process.stderr.write(`${result.companies} companies in ${Math.round(result.elapsedMs)} ms\n`)
