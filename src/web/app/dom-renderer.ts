// React's DOM renderer (react-dom/client, about 64 KB of the first load's 110 KB gzipped), imported dynamically by
// main.tsx: its module is evaluated in a task of its own, after the entry's, instead of both in one long task
// (Lighthouse's Total Blocking Time). The server preloads it with every page (modules/site/prerender.ts,
// `rendererModule`), so it arrives with the entry's chunks.
export { createRoot, hydrateRoot } from 'react-dom/client'
