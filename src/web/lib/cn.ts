import { type ClassValue, clsx } from 'clsx'

type Merge = (classes: string) => string
let merge: Merge | null = null

/**
 * Joins class names; once tailwind-merge is installed (app/class-merge.ts, imported by the chunks whose components
 * override classes: dashboard, account pages, dialogs, and by the prerenderer) later utilities also replace
 * conflicting earlier ones. The public pages' own classes never conflict, so they skip tailwind-merge's 8 KB.
 */
export function cn(...inputs: ClassValue[]): string {
  const classes = clsx(inputs)
  return merge ? merge(classes) : classes
}

export function installClassMerge(fn: Merge): void {
  merge = fn
}
