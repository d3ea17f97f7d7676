// The lazily loaded account chunk: sign-up (with the WhatsApp check), login and password pages.
import './class-merge'
export { LoginPage } from '../features/auth/login-page'
export { ForgotPasswordPage, ResetPasswordPage } from '../features/auth/password-pages'
export { SignupPage } from '../features/auth/signup-page'
