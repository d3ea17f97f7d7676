import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import type { SessionUser } from '../../../domain/contracts/auth'
import type { Plan } from '../../../domain/contracts/plans'
import type { SiteConfig } from '../../../domain/contracts/site'
import type { EmbeddedState } from '../../../web/app/embedded-state'
import { afterPaintTags, takeModuleTags } from './after-paint'

/** What `vite build --ssr entry-server.tsx` (src/web/entry-server.tsx) exports, built into dist/ssr. */
type EntryServer = {
  render(url: string, state: EmbeddedState): Promise<{ html: string; head: { title?: string; description?: string } }>
  serializeState(state: EmbeddedState): string
  routeModuleFor(pathname: string): string | undefined
  firstQueriesFor(pathname: string, user: SessionUser): { key: readonly unknown[]; url: string }[]
  pageKind(pathname: string): 'public' | 'dashboard' | 'not-found'
}

type ManifestChunk = { file: string; imports?: string[]; css?: string[]; isEntry?: boolean }

export type PrerenderOptions = {
  /** The client build (dist/web): index.html is the page template, .vite/manifest.json names the chunks. */
  webRoot: string
  /** The server build of the pages; default: dist/ssr next to webRoot. Missing: pages are served as the shell. */
  ssrEntry?: string
  siteConfig: SiteConfig
  /** The plans on sale, read on each request of /plans (the page shows them in its HTML). */
  plans: () => Promise<Plan[]>
  /**
   * The request's signed-in user, as `GET /api/auth/session` answers it: embedded in the dashboard's shell so the
   * dashboard does not wait for that request. Absent: the browser asks the API.
   */
  session?: (request: FastifyRequest, reply: FastifyReply) => Promise<SessionUser | null>
  /**
   * The body of a GET to the API made with this request's cookie, as the browser would receive it (undefined unless
   * 200): the dashboard's home is rendered with the answers of its first reads, each through its own route (its
   * guard, its serializer).
   */
  apiGet?: (request: FastifyRequest, url: string) => Promise<unknown>
  log: FastifyBaseLogger
}

const sessionCookie = /(?:^|;\s*)(?:__Host-)?billing\.session_token=/

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** The manifest key of React's DOM renderer, which the entry imports dynamically (src/web/app/dom-renderer.ts). */
export const rendererModule = 'app/dom-renderer.ts'

/**
 * Serves the pages of the SPA. Public pages (/, /plans, the legal pages, /login, /signup, password pages and the
 * 404, answered 200 like every page of the SPA) come prerendered, with the state the browser hydrates from embedded as JSON; the dashboard gets the shell
 * with that state. Rendered pages are cached by path, whether the request carried a session cookie, and (for
 * /plans) the plans on sale as read on this request: an admin's plan change shows on the next request, on every
 * instance, with no invalidation to forget.
 */
export function createPrerenderer(options: PrerenderOptions) {
  const template = readFileSync(path.join(options.webRoot, 'index.html'), 'utf8')
  const manifestPath = path.join(options.webRoot, '.vite', 'manifest.json')
  const manifest: Record<string, ManifestChunk> = existsSync(manifestPath)
    ? JSON.parse(readFileSync(manifestPath, 'utf8'))
    : {}
  const ssrEntry = options.ssrEntry ?? path.join(options.webRoot, '..', 'ssr', 'entry-server.js')
  const canHydrate = template.includes('<div id="root"></div>')
  // A prerendered page carries its stylesheet inline (7 KB gzipped): it paints with the HTML alone, no second
  // round trip before the first paint. The shell keeps the <link> (cached across the dashboard's visits).
  const stylesheet = /<link rel="stylesheet"[^>]*href="\/(assets\/[^"]+\.css)"[^>]*>/.exec(template)
  const inlineCss =
    stylesheet?.[1] && existsSync(path.join(options.webRoot, stylesheet[1]))
      ? readFileSync(path.join(options.webRoot, stylesheet[1]), 'utf8').replace(/<\/style/gi, '<\\/style')
      : null
  let entry: Promise<EntryServer | null> | null = null
  const loadEntry = () => {
    entry ??=
      !canHydrate || !existsSync(ssrEntry)
        ? Promise.resolve(null)
        : (import(pathToFileURL(ssrEntry).href) as Promise<EntryServer>).catch((error: unknown) => {
            options.log.error({ err: error }, 'prerender: could not load the server build of the pages')
            return null
          })
    return entry
  }
  const cache = new Map<string, { plansKey: string; body: string }>()

  /** The chunks lazy route modules (and React's DOM renderer, on every page) need that the entry does not preload. */
  const preloadsFor = (...routeModules: (string | undefined)[]): string => {
    const modules = [rendererModule, ...routeModules].filter((m): m is string => !!m && !!manifest[m])
    if (modules.length === 0) return ''
    const entryKey = Object.keys(manifest).find((k) => manifest[k]?.isEntry)
    const seen = new Set<string>()
    const walk = (key: string, into: string[]) => {
      if (seen.has(key) || !manifest[key]) return
      seen.add(key)
      for (const dep of manifest[key].imports ?? []) walk(dep, into)
      into.push(key)
    }
    const entryChunks: string[] = []
    if (entryKey) walk(entryKey, entryChunks)
    const routeChunks: string[] = []
    for (const routeModule of modules) walk(routeModule, routeChunks)
    return routeChunks
      .flatMap((key) => [
        `<link rel="modulepreload" crossorigin href="/${manifest[key]!.file}">`,
        ...(manifest[key]!.css ?? []).map((css) => `<link rel="stylesheet" crossorigin href="/${css}">`),
      ])
      .join('')
  }

  const page = (
    server: EntryServer | null,
    state: EmbeddedState,
    rendered: { html: string; head: { title?: string; description?: string } } | null,
    preloads: string,
  ): string => {
    const json = server ? server.serializeState(state) : JSON.stringify(state).replace(/</g, '\\u003c')
    let html = template
    if (rendered?.head.title)
      html = html.replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(rendered.head.title)}</title>`)
    if (rendered?.head.description)
      // data-default keeps the site's description for pages without their own (use-document-title.ts).
      html = html.replace(
        /<meta name="description" content="([^"]*)"\s*\/?>/,
        (_all, original: string) =>
          `<meta name="description" content="${escapeHtml(rendered.head.description!)}" data-default="${original}" />`,
      )
    if (preloads) html = html.replace('</head>', `${preloads}</head>`)
    if (rendered && stylesheet && inlineCss !== null)
      html = html.replace(stylesheet[0], () => `<style>${inlineCss}</style>`)
    // A prerendered page asks for its scripts after its first paint (after-paint.ts); the shell needs them at once.
    let tail = ''
    if (rendered) {
      const headEnd = html.indexOf('</head>')
      const moved = takeModuleTags(html.slice(0, headEnd))
      if (moved.entry) {
        html = moved.head + html.slice(headEnd)
        tail = afterPaintTags(moved.entry, moved.preload)
      }
    }
    return html.replace(
      '<div id="root"></div>',
      () =>
        `<div id="root">${rendered?.html ?? ''}</div><script id="app-state" type="application/json">${json}</script>${tail}`,
    )
  }

  /**
   * The dashboard's page, with the session's user embedded, so the dashboard renders as soon as its code is here,
   * without a round trip for the session first. Its home (/dashboard) comes rendered for that user, with the answers
   * of the reads it makes first embedded (app/first-queries.ts), so it paints before any script; other dashboard pages
   * are the shell, their route chunk preloaded. The page carries personal data: never stored by the browser.
   */
  const dashboardPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    server: EntryServer,
    state: EmbeddedState,
    pathname: string,
  ): Promise<string> => {
    let full = state
    if (state.session === undefined && options.session) {
      try {
        full = { ...state, session: await options.session(request, reply) }
        reply.header('cache-control', 'no-store')
      } catch (error) {
        // The browser asks the API then (and shows its error).
        request.log.warn({ err: error }, 'dashboard shell: could not read the session')
      }
    }
    const user = full.session
    const home = pathname.replace(/\/$/, '') === '/dashboard'
    const preloads = preloadsFor(
      server.routeModuleFor(pathname),
      home && user?.isAdmin ? 'features/admin/insights/admin-home-page.tsx' : undefined,
    )
    if (home && user && options.apiGet) {
      try {
        const answers = await Promise.all(
          server.firstQueriesFor(pathname, user).map(async ({ key, url }) => {
            const data = await options.apiGet!(request, url)
            return data === undefined ? null : { key, data }
          }),
        )
        const queries = answers.filter((answer) => answer !== null)
        const rendered: EmbeddedState = { ...full, prerendered: true, queries }
        return page(server, rendered, await server.render(request.url, rendered), preloads)
      } catch (error) {
        // The shell then: the browser renders the page, asking the API.
        request.log.error({ err: error }, 'dashboard: render failed')
      }
    }
    // Without the rendered home, an admin's overview starts its one request with the page instead of after its code
    // (api.ts fetches it with the same URL and credentials, so the browser uses this response).
    const insights =
      home && user?.isAdmin ? '<link rel="preload" as="fetch" crossorigin href="/api/admin/insights">' : ''
    return page(server, full, null, insights + preloads)
  }

  return {
    /** Warms the server build up (so the first visitor does not wait for it). */
    load: loadEntry,

    async send(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
      const [pathname = '/', search = ''] = request.url.split(/\?(.*)/s)
      const server = await loadEntry()
      reply.header('cache-control', 'no-cache').header('vary', 'cookie').type('text/html; charset=utf-8')
      if (!canHydrate) return reply.send(template)
      const kind = server?.pageKind(pathname) ?? 'dashboard'
      const anonymous = !sessionCookie.test(request.headers.cookie ?? '')
      const state: EmbeddedState = {
        prerendered: false,
        siteConfig: options.siteConfig,
        ...(anonymous ? { session: null } : {}),
      }
      if (!server) return reply.send(page(server, state, null, ''))
      if (kind === 'dashboard') return reply.send(await dashboardPage(request, reply, server, state, pathname))
      try {
        const plans = pathname === '/plans' ? await options.plans() : undefined
        const plansKey = plans ? JSON.stringify(plans) : ''
        const key = search ? null : `${kind === 'not-found' ? '*' : pathname}|${anonymous ? 'anonymous' : 'cookie'}`
        const cached = key ? cache.get(key) : undefined
        if (cached && cached.plansKey === plansKey) return reply.send(cached.body)
        const full: EmbeddedState = { ...state, prerendered: true, ...(plans ? { plans } : {}) }
        const rendered = await server.render(request.url, full)
        const body = page(server, full, rendered, preloadsFor(server.routeModuleFor(pathname)))
        if (key) cache.set(key, { plansKey, body })
        return reply.send(body)
      } catch (error) {
        // The browser renders it then, asking the API for what it needs.
        request.log.error({ err: error }, 'prerender failed')
        return reply.send(page(server, state, null, ''))
      }
    },
  }
}
