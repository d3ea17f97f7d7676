// The lazily loaded account chunk: sign-up (with the WhatsApp check), login and password pages.
import './class-merge'
export { LoginPage } from '@/web/features/auth/login-page'
export { ForgotPasswordPage, ResetPasswordPage } from '@/web/features/auth/password-pages'
export { SignupPage } from '@/web/features/auth/signup-page'
