// A prerendered page paints with its HTML and inline CSS alone; its JavaScript only hydrates what is on screen. So
// its module script and modulepreloads are requested after the first paint, not from the <head>: on a slow mobile
// link (Lighthouse: 1.6 Mbps, 150 ms RTT) ~110 KB of scripts fetched in parallel with the HTML delayed the page's
// own bytes and its largest paint. The loader below is constant (the page's URLs are in a JSON block beside it), so
// the Content-Security-Policy allows it by its hash and still refuses every other inline script.
import { createHash } from 'node:crypto'

export const afterPaintModulesId = 'app-modules'

/**
 * Two jobs, from the moment the page is parsed:
 * - holds what a visitor does before the page is hydrated (its code may take seconds on a slow link): the last button
 *   clicked and a form submitted (kept from going out as a native request) are kept in `window.__early`, and main.tsx
 *   replays them once React handles events (it sets `done`);
 * - reads `{ entry, preload }` from #app-modules and adds the modulepreload links and the module script once the
 *   browser reports the first contentful paint (a PerformanceObserver entry, delivered after the frame is on screen:
 *   a task queued from requestAnimationFrame can run before that, which the browser test caught). Where no paint is
 *   reported (a tab opened in the background, a browser without the API) the scripts load after 3 s all the same.
 */
export const afterPaintLoader =
  '(function(){var d=document,q=window.__early={click:null,submit:null,done:false},started=0;' +
  "d.addEventListener('click',function(e){if(q.done||!(e.target instanceof Element))return;" +
  'var t=e.target.closest(\'button, [role="button"]\');if(t)q.click=t},true);' +
  "d.addEventListener('submit',function(e){if(q.done)return;e.preventDefault();" +
  'q.submit={form:e.target,submitter:e.submitter||null}},true);' +
  'function go(){if(started)return;started=1;' +
  "var m=JSON.parse(d.getElementById('app-modules').textContent);" +
  "m.preload.forEach(function(h){var l=d.createElement('link');l.rel='modulepreload';l.crossOrigin='';l.href=h;" +
  "d.head.appendChild(l)});var s=d.createElement('script');s.type='module';s.crossOrigin='';s.src=m.entry;" +
  'd.head.appendChild(s)}try{new PerformanceObserver(function(list){' +
  "if(list.getEntriesByName('first-contentful-paint').length)setTimeout(go,0)})" +
  ".observe({type:'paint',buffered:true})}catch(e){}setTimeout(go,3000)})()"

/** The CSP source that allows exactly the loader: `'sha256-…'`. */
export const afterPaintLoaderHash = `'sha256-${createHash('sha256').update(afterPaintLoader).digest('base64')}'`

/** The page's module script and modulepreload links, moved out of `head` (which is returned without them). */
export function takeModuleTags(head: string): { head: string; entry: string | null; preload: string[] } {
  let entry: string | null = null
  const preload: string[] = []
  const rest = head
    .replace(/<script type="module" crossorigin src="([^"]+)"><\/script>\s*/g, (_all, src: string) => {
      entry = src
      return ''
    })
    .replace(/<link rel="modulepreload" crossorigin href="([^"]+)">\s*/g, (_all, href: string) => {
      preload.push(href)
      return ''
    })
  return { head: rest, entry, preload }
}

/** What stands at the end of <body> instead: the URLs as JSON (never executed) and the loader. */
export function afterPaintTags(entry: string, preload: string[]): string {
  const modules = JSON.stringify({ entry, preload }).replace(/</g, '\\u003c')
  return `<script id="${afterPaintModulesId}" type="application/json">${modules}</script><script>${afterPaintLoader}</script>`
}
