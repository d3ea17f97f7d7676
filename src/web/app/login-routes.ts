// The lazily loaded sign-in page, apart from the other account pages: a public page on the performance budget, it
// ships without zod and react-hook-form (features/auth/sign-in-api.ts checks its two fields).
import './class-merge'
export { LoginPage } from '@/web/features/auth/login-page'
