// The lazily loaded account chunk: sign-up (with the WhatsApp check) and password pages (login: login-routes.ts).
import './class-merge'
export { ForgotPasswordPage, ResetPasswordPage } from '@/web/features/auth/password-pages'
export { SignupPage } from '@/web/features/auth/signup-page'
