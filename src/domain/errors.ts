/** The code is for programs, the text for people (the spec's words where it has them). */
export const errorText = {
  validation_failed: 'Dados inválidos. Confira os campos e tente novamente.',
  unauthenticated: 'Usuário não autenticado',
  forbidden: 'Você não tem permissão para acessar esta área',
  not_found: 'Recurso não encontrado.',
  rate_limited: 'Muitas tentativas. Aguarde um pouco e tente novamente.',
  unknown: 'Ocorreu um erro desconhecido',
  origin_forbidden: 'Origem da requisição não permitida.',
  origin_required: 'Requisição sem origem identificada. Use o site para fazer esta operação.',
  service_unavailable: 'Serviço temporariamente indisponível. Tente novamente em instantes.',
  // WhatsApp verification
  whatsapp_invalid: 'Por favor, insira um número de WhatsApp válido (apenas números).',
  code_invalid: 'Código inválido ou expirado.',
  code_attempts_exceeded: 'Número máximo de tentativas excedido. Solicite um novo código.',
  code_resend_too_soon: 'Aguarde 60 segundos antes de solicitar um novo código.',
  code_hourly_limit: 'Limite de códigos por hora atingido para este número. Tente novamente mais tarde.',
  code_daily_limit: 'Limite diário de códigos atingido para este número. Tente novamente amanhã.',
  whatsapp_not_verified: 'Por favor, verifique seu número de WhatsApp antes de continuar.',
  whatsapp_send_failed: 'Não foi possível enviar a mensagem pelo WhatsApp. Tente novamente.',
  // Accounts
  email_taken: 'Este e-mail já está cadastrado.',
  password_too_short: 'A senha deve ter pelo menos 8 caracteres.',
  password_too_long: 'A senha deve ter no máximo 128 caracteres.',
  invalid_credentials: 'E-mail ou senha incorretos.',
  email_not_verified:
    'Seu e-mail ainda não foi confirmado. Enviamos um novo link de confirmação para sua caixa de entrada.',
  invalid_token: 'O link é inválido ou expirou. Solicite um novo.',
  email_invalid: 'Informe um e-mail válido.',
  // Personal data (LGPD): account deletion
  password_incorrect: 'Senha incorreta. Confira e tente novamente.',
  account_has_live_subscription:
    'Não é possível excluir a conta enquanto houver uma assinatura em andamento. Cancele a assinatura e aguarde o fim do período pago (ou o cancelamento da fatura pendente) antes de excluir a conta.',
  account_has_open_invoice:
    'Não é possível excluir a conta enquanto houver uma fatura em aberto. Pague a fatura ou fale com o suporte antes de excluir a conta.',
  last_admin_delete:
    'Você é o último administrador. Promova outro usuário a administrador antes de excluir a sua conta.',
  account_locked:
    'Esta conta recebeu muitas tentativas de acesso com senha errada e foi bloqueada por até uma hora. Tente novamente mais tarde ou redefina sua senha.',
  // Two-factor and step-up re-authentication
  two_factor_invalid: 'Código de verificação inválido.',
  two_factor_expired: 'A verificação expirou. Entre novamente com e-mail e senha.',
  two_factor_locked: 'Muitas tentativas com código inválido. Aguarde 15 minutos e tente novamente.',
  two_factor_already_enabled: 'A verificação em duas etapas já está ativa.',
  two_factor_not_enabled: 'A verificação em duas etapas não está ativa.',
  two_factor_setup_required:
    'Administradores precisam ativar a verificação em duas etapas. Ative-a em Minha conta para acessar o painel administrativo.',
  reauthentication_required: 'Por segurança, confirme sua senha para continuar.',
  // Billing
  plan_not_found: 'Plano não encontrado.',
  plan_in_use: 'Este plano possui assinaturas e não pode ser excluído. Desative-o para ocultá-lo da página de planos.',
  plan_exists: 'Já existe um plano com este ID.',
  subscription_not_found: 'Assinatura não encontrada.',
  payment_not_found: 'Pagamento não encontrado.',
  payment_not_pending: 'Este pagamento não está aguardando PIX.',
  payment_not_paid: 'O recibo fica disponível depois que o pagamento é confirmado.',
  pix_not_configured: 'O pagamento via PIX ainda não está configurado. Tente novamente mais tarde ou pague com cartão.',
  pix_key_invalid: 'Chave PIX inválida: use CPF, CNPJ, e-mail, telefone com +55 ou chave aleatória.',
  cannot_cancel: 'Só é possível cancelar assinaturas ativas que ainda não têm cancelamento agendado.',
  cannot_upgrade: 'Só é possível trocar o plano de assinaturas ativas.',
  no_higher_plan: 'Você já está no plano mais alto.',
  plan_not_higher: 'Escolha um plano com valor maior que o atual.',
  card_unavailable: 'O pagamento com cartão está indisponível no momento. Tente novamente mais tarde.',
  card_provider_error: 'O provedor de pagamento com cartão não respondeu. Tente novamente em instantes.',
  invoice_not_open:
    'Esta fatura não está mais em aberto: ela já foi paga ou cancelada. Atualize a página de pagamentos.',
  card_declined:
    'O pagamento com cartão foi recusado e seu plano continua o mesmo. Confira os dados do cartão ou use outro e tente novamente.',
  webhook_signature_invalid: 'Assinatura do webhook inválida.',
  whatsapp_signature_invalid: 'Assinatura do webhook do WhatsApp ausente ou inválida.',
  simulator_disabled: 'O simulador de cartão não está disponível neste ambiente.',
  last_admin: 'Não é possível remover o último administrador.',
  e2e_id_taken: 'Este identificador de transação PIX já foi usado em outro pagamento.',
  card_subscription_managed:
    'Esta alteração não é possível em uma assinatura de cartão: ela é gerenciada pelo Stripe. Cancele-a e crie uma nova, se preciso.',
  user_not_found: 'Usuário não encontrado.',
  payload_too_large: 'O conteúdo enviado é grande demais (máximo de 64 KiB).',
  // PIX via API Pix (refunds, webhook registration)
  pix_api_disabled: 'A confirmação automática de PIX não está ativa (PIX_PROVIDER=manual).',
  pix_refund_not_allowed: 'Só é possível devolver um PIX pago recebido pela API Pix, em até 90 dias do pagamento.',
  pix_refund_too_much: 'O valor da devolução é maior que o saldo ainda não devolvido deste PIX.',
  pix_provider_error: 'O PSP do PIX não respondeu ou recusou o pedido. Tente novamente em instantes.',
  // PIX Automático
  pix_automatico_disabled: 'O PIX Automático não está disponível. Escolha pagar só esta fatura com PIX.',
  tax_id_required: 'Informe seu CPF ou CNPJ para autorizar o PIX Automático.',
  tax_id_invalid: 'CPF ou CNPJ inválido. Confira os números.',
  pix_automatico_not_found: 'Esta assinatura não tem renovação automática via PIX.',
  pix_automatico_not_allowed: 'Não é possível alterar a renovação automática desta assinatura agora.',
} as const

export type DomainErrorCode = keyof typeof errorText

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message?: string,
    options?: ErrorOptions,
  ) {
    super(message ?? errorText[code], options)
    this.name = 'DomainError'
  }
}
