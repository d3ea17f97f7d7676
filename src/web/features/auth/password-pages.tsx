export function ForgotPasswordPage() {
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-bold">Esqueci minha senha</h1>
    </main>
  )
}

export function ResetPasswordPage() {
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-bold">Nova senha</h1>
    </main>
  )
}
