// Server-rendered pages of the card simulator: plain HTML forms, no script (the CSP allows none inline).
import { formatBRL } from '../../../domain/money'
import type { SimulatorSessionView } from './card-simulator.service'

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

const styles = `
  *{box-sizing:border-box}
  body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;background:#f4f5f7;color:#111827}
  main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:.75rem;
    box-shadow:0 1px 3px rgba(0,0,0,.12)}
  .test-mode{margin:0 0 1rem;padding:.5rem .75rem;border-radius:.5rem;background:#fef3c7;color:#78350f;
    font-weight:700;font-size:.875rem;text-align:center}
  h1{font-size:1.25rem;margin:0 0 .5rem}
  p{line-height:1.5}
  dl{display:grid;grid-template-columns:auto 1fr;gap:.5rem 1rem;margin:1rem 0}
  dt{color:#4b5563}
  dd{margin:0;font-weight:600;overflow-wrap:anywhere}
  form{margin:0}
  .actions{display:flex;flex-direction:column;gap:.75rem;margin-top:1.5rem}
  button{width:100%;padding:.75rem 1rem;border-radius:.5rem;border:1px solid transparent;font-size:1rem;
    font-weight:600;cursor:pointer}
  button.approve{background:#15803d;color:#fff}
  button.decline{background:#fff;color:#b91c1c;border-color:#b91c1c}
  button:focus-visible,a:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
  a{color:#1d4ed8}
  @media (max-width:30rem){main{margin:1rem}}
`

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${styles}</style>
</head>
<body>
<main>
<p class="test-mode" role="note">MODO DE TESTE — nenhuma cobrança real</p>
${body}
</main>
</body>
</html>`
}

export function checkoutPage(session: SimulatorSessionView, urls: { plans: string; success: string }): string {
  const base = `/api/dev/card-simulator/${encodeURIComponent(session.id)}`
  const actions = session.approved
    ? `<p><strong>Este pagamento já foi aprovado.</strong></p>
<p><a href="${escapeHtml(urls.success)}">Ver minhas assinaturas</a></p>`
    : `<div class="actions">
  <form method="post" action="${base}/approve"><button type="submit" class="approve">Aprovar pagamento</button></form>
  <form method="post" action="${base}/decline"><button type="submit" class="decline">Recusar pagamento</button></form>
</div>
<p><a href="${escapeHtml(urls.plans)}">Voltar aos planos</a></p>`
  return layout(
    'Pagamento com cartão — modo de teste',
    `<h1>Pagamento com cartão</h1>
<p>Este é o simulador local do provedor de cartão. Nenhum cartão é solicitado e nenhum valor é cobrado.</p>
<dl>
  <dt>Plano</dt><dd>${escapeHtml(session.planName)}</dd>
  <dt>Valor</dt><dd>${escapeHtml(formatBRL(session.amountCents))}/mês</dd>
  <dt>E-mail</dt><dd>${escapeHtml(session.email)}</dd>
</dl>
${actions}`,
  )
}

export function notFoundPage(plansUrl: string, what: 'session' | 'receipt' = 'session'): string {
  const title = what === 'session' ? 'Sessão de pagamento não encontrada' : 'Recibo não encontrado'
  const text =
    what === 'session'
      ? 'Esta sessão de pagamento não existe, expirou ou pertence a outra conta. Entre com a conta que iniciou o ' +
        'pagamento ou escolha o plano novamente.'
      : 'Este recibo não existe ou pertence a outra conta. Entre com a conta que fez o pagamento.'
  return layout(
    title,
    `<h1>${title}</h1>
<p>${text}</p>
<p><a href="${escapeHtml(plansUrl)}">Voltar aos planos</a></p>`,
  )
}

export function receiptPage(receipt: {
  invoiceId: string
  planName: string
  customerName: string
  customerEmail: string
  amountCents: number
  paidAt: Date
  type: 'new' | 'upgrade' | 'renewal'
}): string {
  const kind = { new: 'Nova assinatura', upgrade: 'Troca de plano (valor proporcional)', renewal: 'Renovação' }
  const paidAt = new Intl.DateTimeFormat('pt-BR', {
    dateStyle: 'short',
    timeStyle: 'short',
    timeZone: 'America/Fortaleza',
  }).format(receipt.paidAt)
  return layout(
    'Recibo de pagamento — modo de teste',
    `<h1>Recibo de pagamento</h1>
<p>Pagamento com cartão simulado. Este recibo não corresponde a nenhuma cobrança real.</p>
<dl>
  <dt>Fatura</dt><dd>${escapeHtml(receipt.invoiceId)}</dd>
  <dt>Cliente</dt><dd>${escapeHtml(receipt.customerName)} (${escapeHtml(receipt.customerEmail)})</dd>
  <dt>Plano</dt><dd>${escapeHtml(receipt.planName)}</dd>
  <dt>Referente a</dt><dd>${escapeHtml(kind[receipt.type])}</dd>
  <dt>Valor pago</dt><dd>${escapeHtml(formatBRL(receipt.amountCents))}</dd>
  <dt>Pago em</dt><dd>${escapeHtml(paidAt)}</dd>
  <dt>Situação</dt><dd>Pago</dd>
</dl>`,
  )
}
