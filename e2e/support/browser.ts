import { mkdirSync } from 'node:fs'
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { type Browser, chromium, type Page } from 'playwright-core'
import { expect } from 'vitest'

export const viewports = {
  mobile: { width: 375, height: 812 },
  desktop: { width: 1280, height: 800 },
} as const

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export async function newPage(browser: Browser, viewport: keyof typeof viewports = 'desktop'): Promise<Page> {
  const context = await browser.newContext({ viewport: viewports[viewport], locale: 'pt-BR' })
  return context.newPage()
}

const screenshotDir = path.resolve('test-results/screenshots')

/**
 * Saved for people to look at (not committed). The whole page by default; `{ fullPage: false }` keeps what the
 * visitor sees, e.g. with a modal open (a full-page capture would not extend the fixed overlay).
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true })
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: options.fullPage ?? true })
}

/** No serious or critical accessibility violations. */
export async function expectAccessible(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze()
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    'axe violations',
  ).toEqual([])
}

/** The visible toast with this title (sonner renders one at a time). */
export function toast(page: Page, title: string) {
  return page.locator('[data-sonner-toast]').filter({ hasText: title })
}
