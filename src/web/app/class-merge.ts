// Imported for its effect by the chunks whose components pass conflicting class overrides (see lib/cn.ts).
import { twMerge } from 'tailwind-merge'
import { installClassMerge } from '@/web/lib/cn'

installClassMerge(twMerge)
