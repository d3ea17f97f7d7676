/** Toast titles exactly as written in the spec (section 8). Tests assert the literal texts. */
export const toasts = {
  login: { error: 'Erro no login' },
  signup: { error: 'Erro no cadastro', success: 'Cadastro realizado! Verifique seu email para confirmar sua conta' },
  codeSend: { error: 'Erro ao enviar código', success: 'Código enviado! Verifique seu WhatsApp.' },
  // Without a message from the server, a failed check is the spec's default reason.
  codeVerify: {
    error: 'Erro na verificação',
    success: 'Número verificado com sucesso!',
    fallback: 'Código inválido ou expirado.',
  },
  signOut: { error: 'Erro ao sair' },
  unauthenticated: { error: 'Usuário não autenticado' },
  pixInvoice: {
    error: 'Erro ao gerar fatura PIX',
    success: 'Fatura PIX gerada! Realize o pagamento para ativar sua assinatura.',
  },
  profile: { error: 'Erro ao atualizar perfil', success: 'Perfil atualizado com sucesso!' },
  whatsappChange: { error: 'Erro ao atualizar WhatsApp', success: 'Número de WhatsApp atualizado com sucesso!' },
  cancel: {
    error: 'Erro ao cancelar',
    success: 'Cancelamento solicitado: Sua assinatura será cancelada no final do período de faturamento.',
  },
  upgrade: { error: 'Erro ao solicitar upgrade' },
  subscriptionSave: { error: 'Erro ao salvar assinatura', success: 'Assinatura salva com sucesso!' },
  adminCancel: { error: 'Erro ao salvar assinatura', success: 'Assinatura cancelada com sucesso!' },
  paymentConfirm: { error: 'Erro ao confirmar pagamento', success: 'Pagamento confirmado com sucesso!' },
  planSave: { error: 'Erro ao salvar plano', success: 'Plano salvo com sucesso!' },
  planDelete: { error: 'Erro ao excluir plano', success: 'Plano excluído com sucesso!' },
  permissions: { error: 'Erro ao atualizar permissões', success: 'Permissões atualizadas.' },
  pixSettings: { error: 'Erro ao salvar', success: 'Configurações PIX salvas com sucesso!' },
  checkout: { error: 'Erro ao criar sessão de pagamento' },
  invalidNumber: {
    error: 'Número inválido',
    description: 'Por favor, insira um número de WhatsApp válido (apenas números).',
  },
  verificationRequired: {
    error: 'Verificação necessária',
    description: 'Por favor, verifique seu número de WhatsApp antes de continuar.',
  },
  accessUnauthorized: {
    error: 'Acesso não autorizado',
    description: 'Você precisa estar logado para acessar esta página',
  },
  accessDenied: { error: 'Acesso negado', description: 'Você não tem permissão para acessar esta área' },
} as const

/** `fallback`: the toast's description when the error carries no message of the server. */
export type Feedback = { success?: string; error: string; fallback?: string }
