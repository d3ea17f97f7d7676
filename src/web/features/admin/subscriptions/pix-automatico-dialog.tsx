import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { type AutomaticoAdminView, automaticoAdminViewSchema } from '@/domain/contracts/pix-automatico'
import { Badge } from '@/web/components/ui/badge'
import { Button } from '@/web/components/ui/button'
import { QueryState } from '@/web/components/query-state'
import { DialogFrame } from '@/web/components/ui/dialog-frame'
import { EmptyState } from '@/web/components/ui/states'
import { api } from '@/web/lib/api'
import { formatBRL, formatDate } from '@/web/lib/format'

const dateTime = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Fortaleza',
  dateStyle: 'short',
  timeStyle: 'short',
})

function automaticoQuery(subscriptionId: string) {
  return {
    queryKey: ['admin', 'pix-automatico', subscriptionId],
    queryFn: () =>
      api.get(
        `/api/admin/subscriptions/${encodeURIComponent(subscriptionId)}/pix-automatico`,
        automaticoAdminViewSchema,
      ),
  }
}

/** 'PIX Automático': the subscription's recurrences and recurring charges at the PSP, with their status history. */
export function PixAutomaticoButton({ subscriptionId, name }: { subscriptionId: string; name: string }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <Button size="sm" variant="outline" onClick={() => setOpen(true)}>
        PIX Automático
      </Button>
      <DialogFrame
        open={open}
        onOpenChange={setOpen}
        title="PIX Automático"
        description={`${name}: autorizações e cobranças recorrentes, com o histórico de cada uma.`}
        className="max-h-[90vh] max-w-3xl overflow-y-auto"
      >
        {open ? <AutomaticoHistory subscriptionId={subscriptionId} /> : null}
      </DialogFrame>
    </>
  )
}

function AutomaticoHistory({ subscriptionId }: { subscriptionId: string }) {
  const query = useQuery(automaticoQuery(subscriptionId))
  return (
    <QueryState
      query={query}
      isEmpty={(view) => view.recurrences.length === 0}
      empty={<EmptyState title="Esta assinatura não usa PIX Automático." />}
    >
      {(view) => <AutomaticoLists view={view} />}
    </QueryState>
  )
}

function AutomaticoLists({ view: { recurrences, charges } }: { view: AutomaticoAdminView }) {
  return (
    <div className="flex flex-col gap-6 text-sm">
      <section aria-labelledby="pa-recurrences" className="flex flex-col gap-3">
        <h3 id="pa-recurrences" className="font-semibold">
          Autorizações (recorrências)
        </h3>
        <ul className="flex flex-col gap-3">
          {recurrences.map((r) => (
            <li key={r.id} className="flex flex-col gap-1 rounded-md border border-border p-3">
              <div className="flex flex-wrap items-center gap-2">
                <Badge variant={r.status === 'APROVADA' ? 'default' : 'outline'}>{r.state}</Badge>
                <span className="font-mono text-xs break-all">{r.idRec}</span>
                <span>{formatBRL(r.amountCents)} por mês</span>
              </div>
              {r.cancelledBy || r.endReason ? (
                <p className="text-muted-foreground">
                  Encerrada {r.cancelledBy ? `por ${r.cancelledBy}` : ''} {r.endReason ? `(${r.endReason})` : ''}
                </p>
              ) : null}
              <History history={r.history} />
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="pa-charges" className="flex flex-col gap-3">
        <h3 id="pa-charges" className="font-semibold">
          Cobranças recorrentes
        </h3>
        {charges.length === 0 ? (
          <p className="text-muted-foreground">Nenhuma cobrança recorrente enviada ainda.</p>
        ) : (
          <ul className="flex flex-col gap-3">
            {charges.map((c) => (
              <li key={c.id} className="flex flex-col gap-1 rounded-md border border-border p-3">
                <div className="flex flex-wrap items-center gap-2">
                  <Badge variant={c.status === 'CONCLUIDA' ? 'default' : 'outline'}>{c.status}</Badge>
                  <span>vence em {formatDate(c.dueDate)}</span>
                  <span>{formatBRL(c.amountCents)}</span>
                  <span className="font-mono text-xs break-all text-muted-foreground">{c.txid}</span>
                </div>
                {c.rejection ? <p className="text-destructive">Recusa: {c.rejection}</p> : null}
                {c.attempts.length > 0 ? (
                  <ol className="list-inside list-decimal" aria-label="Tentativas">
                    {c.attempts.map((a) => (
                      <li key={`${a.date}-${a.type}`}>
                        {formatDate(a.date)}: {a.status}
                        {a.reason ? ` — ${a.reason}` : ''}
                      </li>
                    ))}
                  </ol>
                ) : null}
                {c.fallbackAt ? (
                  <p className="text-muted-foreground">
                    Virou fatura PIX comum em {dateTime.format(new Date(c.fallbackAt))}
                  </p>
                ) : null}
                <History history={c.history} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  )
}

function History({ history }: { history: AutomaticoAdminView['charges'][number]['history'] }) {
  return (
    <details>
      <summary className="cursor-pointer text-muted-foreground">Histórico ({history.length})</summary>
      <ol className="mt-1 flex flex-col gap-0.5 text-xs text-muted-foreground">
        {history.map((h) => (
          <li key={`${h.at}-${h.status}-${h.source}`}>
            {dateTime.format(new Date(h.at))} · {h.status} · {h.source}
            {h.detail ? ` · ${h.detail}` : ''}
          </li>
        ))}
      </ol>
    </details>
  )
}
