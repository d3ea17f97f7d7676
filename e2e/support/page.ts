// What a test does on a page, written once: find a field by its label, a button by its name, wait for a toast,
// make the page quiet before axe, close a dialog. Each e2e file then reads as its journey.
import type { Locator, Page } from 'playwright-core'
import { expectAccessible, toast } from './browser'

type Scope = Page | Locator

/** The form control with exactly this label. */
export const field = (scope: Scope, label: string) => scope.getByLabel(label, { exact: true })
/** The button with exactly this accessible name. */
export const button = (scope: Scope, name: string) => scope.getByRole('button', { name, exact: true })

/** An amount as the page writes it: Intl puts a no-break space after 'R$'. */
export const brl = (text: string) => new RegExp(text.replace('R$ ', 'R\\$\\s').replace('.', '\\.'))

/** Whitespace collapsed to plain spaces. */
export function normalized(text: string | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim()
}

/** The text as rendered (what people read), whitespace collapsed to plain spaces. */
export async function textOf(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: layout-aware text separates table cells and list items
  return normalized(await locator.innerText())
}

/** Waits for the visible toast with this title (and this description, when given). */
export async function expectToast(page: Page, title: string, description?: string | RegExp): Promise<void> {
  const found = description === undefined ? toast(page, title) : toast(page, title).filter({ hasText: description })
  await found.first().waitFor({ state: 'visible' })
}

/** Closes the toasts (behind an open modal dialog they cannot be clicked: then they time out, 5 s). */
export async function dismissToasts(page: Page): Promise<void> {
  for (const close of await page.locator('[data-sonner-toast] [data-close-button]').all()) {
    await close.click({ timeout: 2000 }).catch(() => undefined)
  }
  await quiet(page)
}

/**
 * The pointer away from buttons (hover colours are not what is checked; a pointer resting on a toast pauses its
 * timer) and the toasts gone (sonner's rich colours are the shared Toaster's business, checked elsewhere).
 */
export async function quiet(page: Page): Promise<void> {
  await page.mouse.move(0, 0)
  await page.locator('[data-sonner-toast]').first().waitFor({ state: 'detached', timeout: 15_000 })
}

/** axe on the quiet page: no serious or critical violations. */
export async function checkAccessible(page: Page): Promise<void> {
  await quiet(page)
  await expectAccessible(page)
}

/** Escape closes the open dialog. */
export async function closeDialog(page: Page): Promise<void> {
  await page.keyboard.press('Escape')
  await page.getByRole('dialog').waitFor({ state: 'detached' })
}

/**
 * Waits until React handles the page's events (main.tsx marks <html data-hydrated>): a prerendered form filled and
 * submitted before its script has run would be submitted by the browser itself.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.locator('html[data-hydrated]').waitFor({ state: 'attached' })
}

/** Fills the /login form and presses 'Entrar' (where it lands is the caller's to check). */
export async function submitLogin(page: Page, account: { email: string; password: string }): Promise<void> {
  await waitForHydration(page)
  await field(page, 'E-mail').fill(account.email)
  await field(page, 'Senha').fill(account.password)
  await button(page, 'Entrar').click()
}

export async function expectPath(page: Page, pathAndQuery: string): Promise<void> {
  await page.waitForURL((url) => `${url.pathname}${url.search}` === pathAndQuery)
}
