export function PlansPage() {
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-bold">Planos</h1>
    </main>
  )
}
