// Import rules of src/ (docs/architecture.md draws them). `npm run lint:deps` fails on any violation.
// Every import points down a layer: a module may import its own folder and any lower layer, never a
// higher one and never a sibling folder of the same layer. No cycle among src/ files, type-only
// imports included.

/** Lowest first. Each entry is a layer; each layer lists its folders (or base files). */
const LAYERS = [
  ['config', 'clock', 'errors', 'log', 'metrics', 'lru'], // base: single files in src/
  ['fields', 'dates'], // base: shared field kinds and day arithmetic
  ['db'],
  ['deps'], // the dependency bag handed to every domain function: config, app.db, datasets, clock, log
  ['ingest'],
  ['census', 'licensing', 'safety', 'equipment', 'reviews', 'keys', 'users'],
  ['trust', 'crosscheck', 'identity', 'blocklist'], // blocklist: VINs by the equipment rules
  ['carriers'],
  ['compose'], // createDeps: the dependency bag with its ports (records assembled in process)
  ['search', 'sync', 'webhooks', 'checks', 'mail'],
  ['onboarding'], // lists of companies checked as a job, through checks/
  ['http', 'cli', 'jobs', 'console'],
  ['app'], // createApp(deps): the HTTP composition
  ['serve'], // the composition root: config → deps → app → listen → jobs → shutdown
  ['main'], // entry: serve or a CLI command
]

/** `src/<name>/…` or `src/<name>.ts` */
const TESTS = '\\.test\\.ts$'
const unit = (name) => `^src/${name}(/|\\.ts$)`
const any = (names) => `^src/(${names.join('|')})(/|\\.ts$)`

const layerRules = LAYERS.flatMap((layer, rank) => {
  const higher = LAYERS.slice(rank + 1).flat()
  return layer.flatMap((name) => {
    const siblings = layer.filter((other) => other !== name)
    return [
      ...(higher.length
        ? [
            {
              name: `${name}-not-up`,
              comment: `${name} (layer ${rank}) must not import a higher layer`,
              severity: 'error',
              from: { path: unit(name), pathNot: TESTS },
              to: { path: any(higher) },
            },
          ]
        : []),
      ...(siblings.length
        ? [
            {
              name: `${name}-not-sideways`,
              comment: `${name} must not import a sibling folder of layer ${rank}`,
              severity: 'error',
              from: { path: unit(name), pathNot: TESTS },
              to: { path: any(siblings) },
            },
          ]
        : []),
    ]
  })
})

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycle among src/ files (type-only imports included)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'product-not-workshop',
      comment: 'the product never imports the test helpers, the generator, benches or scripts',
      severity: 'error',
      from: { path: '^src/', pathNot: ['\\.test\\.ts$', '^src/testing/'] },
      to: { path: ['^src/testing/', '^tools/', '^bench/', '^scripts/', '^test/'] },
    },
    {
      name: 'unlisted-src-unit',
      comment: 'every folder or file of src/ belongs to a layer (add new ones to LAYERS)',
      severity: 'error',
      from: { path: '^src/', pathNot: ['\\.test\\.ts$', '^src/testing/'] },
      to: {
        path: '^src/',
        pathNot: [any(LAYERS.flat()), '^src/testing/'],
      },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js'] },
  },
}
