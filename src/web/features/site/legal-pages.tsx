export function PrivacyPolicyPage() {
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-bold">Política de Privacidade</h1>
    </main>
  )
}

export function TermsOfServicePage() {
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-bold">Termos de Serviço</h1>
    </main>
  )
}
