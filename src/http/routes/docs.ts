/**
 * GET /openapi.json (the OpenAPI 3.1 document) and GET /docs (a Swagger UI reference page served
 * from the swagger-ui-dist package on disk: the appliance may have no internet, so no CDN).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Hono } from 'hono'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import type { AppEnv } from '../env.ts'
import type { Endpoint } from './endpoint.ts'
import { buildOpenApi, type RouteDoc } from '../openapi.ts'

/** The swagger-ui-dist files the page uses, with their media types. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
}

/** `file` of /docs/{file}: one of the page's assets. */
export const DocsAsset = z.enum(['init.js', ...Object.keys(DOCS_ASSETS)])

const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
    tryItOutEnabled: false,
  })
})
`

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Carrier and Broker Verification API — reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
<noscript>This page needs JavaScript. The machine-readable reference is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`

// everything the page loads comes from this origin; Swagger UI sets inline styles
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

/** The installed swagger-ui-dist directory (resolved, not assumed: npm may hoist it). */
export function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as unknown
    const v = z.object({ version: z.string() }).safeParse(pkg)
    return v.success ? v.data.version : '1.0.0'
  } catch {
    return '1.0.0'
  }
}

export interface DocsOptions {
  publicUrl: string
  /** every documented route of the app (called once, on the first request) */
  routes: () => readonly RouteDoc[]
}

/** /openapi.json, /docs and /docs/{asset}: no key, cached after the first request. */
export function docsRoutes(opts: DocsOptions) {
  let document: string | null = null
  const assets = new Map<string, Buffer>()
  const asset = (name: string): Buffer => {
    let body = assets.get(name)
    if (!body) {
      body = readFileSync(join(swaggerUiDir(), name))
      assets.set(name, body)
    }
    return body
  }
  return new Hono<AppEnv>()
    .get('/openapi.json', (c) => {
      document ??= JSON.stringify(
        buildOpenApi(opts.routes(), { publicUrl: opts.publicUrl, version: packageVersion() }),
      )
      return c.body(document, 200, { 'content-type': 'application/json; charset=utf-8' })
    })
    .get('/docs', (c) =>
      c.body(PAGE, 200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': CSP,
      }),
    )
    .get('/docs/:file', (c) => {
      const name = DocsAsset.safeParse(c.req.param('file'))
      if (!name.success)
        throw new AppError('not_found', 'No such documentation asset; see GET /docs')
      const file = name.data
      if (file === 'init.js')
        return c.body(INIT_JS, 200, {
          'content-type': 'text/javascript; charset=utf-8',
          'cache-control': 'no-cache',
        })
      return c.body(new Uint8Array(asset(file)), 200, {
        'content-type': DOCS_ASSETS[file] ?? 'application/octet-stream',
        'cache-control': 'public, max-age=86400',
      })
    })
}

/** The media types /docs/{file} answers with: text for the script and style, bytes for icons. */
function assetContent(): Record<string, Record<string, unknown>> {
  const content: Record<string, Record<string, unknown>> = {}
  for (const type of new Set(['text/javascript; charset=utf-8', ...Object.values(DOCS_ASSETS)])) {
    const media = type.split(';')[0] ?? type
    content[media] = media.startsWith('text/')
      ? { type: 'string' }
      : { type: 'string', contentMediaType: media }
  }
  return content
}

/** OpenAPI entries of these routes. */
export const docsDocs: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This document (OpenAPI 3.1)',
    description:
      'Generated from the zod schemas that validate requests and shape responses, so it cannot drift from the code.',
    tags: ['operations'],
    auth: false,
    responses: {
      200: {
        description: 'The OpenAPI document',
        content: {
          'application/json': {
            type: 'object',
            description: 'An OpenAPI 3.1 document',
            properties: {
              openapi: { type: 'string', const: '3.1.0' },
              info: { type: 'object' },
              paths: { type: 'object' },
            },
            required: ['openapi', 'info', 'paths'],
          },
        },
      },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getDocsPage',
    summary: 'Reference page',
    description: 'Swagger UI over /openapi.json, served from local assets (no CDN, works offline).',
    tags: ['operations'],
    auth: false,
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
    errors: [],
  },
  {
    method: 'get',
    path: '/docs/{file}',
    operationId: 'getDocsAsset',
    summary: 'Reference page assets',
    description: `Swagger UI's files: ${[...Object.keys(DOCS_ASSETS), 'init.js'].join(', ')}.`,
    tags: ['operations'],
    auth: false,
    params: [
      {
        name: 'file',
        in: 'path',
        required: true,
        description: 'asset file name',
        schema: DocsAsset,
      },
    ],
    responses: {
      200: { description: 'The asset, in its own media type', content: assetContent() },
    },
    errors: ['not_found'],
  },
]

/** /openapi.json and /docs over `all()`, the entries of every endpoint (this one included). */
export const docsEndpoint = (all: () => readonly RouteDoc[]): Endpoint => ({
  docs: docsDocs,
  routes: (deps) => docsRoutes({ publicUrl: deps.config.publicUrl, routes: all }),
})
