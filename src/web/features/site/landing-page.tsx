export function LandingPage() {
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-bold">Atendimento Multicanal</h1>
    </main>
  )
}
