import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { z } from 'zod'
import { adminWhatsAppMessageSchema, type AdminWhatsAppMessage } from '@/domain/contracts/whatsapp'
import { Badge } from '@/web/components/ui/badge'
import { Button } from '@/web/components/ui/button'
import { QueryState } from '@/web/components/query-state'
import { DialogFrame } from '@/web/components/ui/dialog-frame'
import { EmptyState } from '@/web/components/ui/states'
import { api } from '@/web/lib/api'

const statusLabel: Record<AdminWhatsAppMessage['status'], string> = {
  received: 'Recebida',
  accepted: 'Aceita pela Meta',
  sent: 'Enviada',
  delivered: 'Entregue',
  read: 'Lida',
  failed: 'Falhou',
}

const kindLabel: Record<string, string> = {
  code: 'Código de verificação',
  notification: 'Aviso de cobrança',
  reply: 'Resposta no chat',
  image: 'Imagem no chat',
  message: 'Mensagem do cliente',
}

const dateTime = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Fortaleza',
  dateStyle: 'short',
  timeStyle: 'short',
})

function whatsappMessagesQuery(userId: string) {
  return {
    queryKey: ['admin', 'whatsapp-messages', userId],
    queryFn: () =>
      api.get(`/api/admin/users/${encodeURIComponent(userId)}/whatsapp-messages`, z.array(adminWhatsAppMessageSchema)),
  }
}

/** 'Mensagens': the customer's WhatsApp history (sent and received) with Meta's delivery receipts. */
export function WhatsAppMessagesButton({ userId, name }: { userId: string; name: string }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <Button size="sm" variant="outline" onClick={() => setOpen(true)}>
        Mensagens
      </Button>
      <DialogFrame
        open={open}
        onOpenChange={setOpen}
        title="Mensagens de WhatsApp"
        description={`${name}: mensagens enviadas e recebidas, com os recibos de entrega.`}
        className="max-w-2xl"
      >
        {open ? <MessageHistory userId={userId} /> : null}
      </DialogFrame>
    </>
  )
}

function MessageHistory({ userId }: { userId: string }) {
  const query = useQuery(whatsappMessagesQuery(userId))
  return (
    <QueryState
      query={query}
      isEmpty={(messages) => messages.length === 0}
      empty={<EmptyState title="Nenhuma mensagem de WhatsApp." />}
    >
      {(messages) => <MessageList messages={messages} />}
    </QueryState>
  )
}

function MessageList({ messages }: { messages: AdminWhatsAppMessage[] }) {
  return (
    <ol className="flex flex-col gap-3" aria-label="Histórico de mensagens">
      {messages.map((m) => (
        <li
          key={m.id}
          className={`flex flex-col gap-1 rounded-md border border-border p-3 text-sm ${
            m.direction === 'inbound' ? 'bg-muted/40' : ''
          }`}
        >
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-medium">{m.direction === 'inbound' ? 'Cliente' : 'Nós'}</span>
            <span className="text-muted-foreground">{kindLabel[m.kind] ?? m.kind}</span>
            {m.template ? <span className="text-muted-foreground">modelo {m.template}</span> : null}
            <span className="text-muted-foreground">{dateTime.format(new Date(m.createdAt))}</span>
            <Badge variant={m.status === 'failed' ? 'destructive' : 'outline'}>{statusLabel[m.status]}</Badge>
          </div>
          <p className="whitespace-pre-wrap break-words">{m.body}</p>
          {m.status === 'failed' && (m.errorCode || m.errorTitle) ? (
            <p className="text-destructive">
              Erro {m.errorCode ?? ''} {m.errorTitle ?? ''}
            </p>
          ) : null}
          {m.statuses.length > 0 ? (
            <p className="text-xs text-muted-foreground">
              {m.statuses
                .map(
                  (s) =>
                    `${statusLabel[s.status as AdminWhatsAppMessage['status']] ?? s.status} ${dateTime.format(new Date(s.occurredAt))}`,
                )
                .join(' · ')}
            </p>
          ) : null}
        </li>
      ))}
    </ol>
  )
}
