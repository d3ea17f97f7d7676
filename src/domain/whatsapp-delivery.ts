// Why Meta could not deliver a WhatsApp message, in Portuguese, from the error code of a 'failed' delivery receipt
// (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes). Pure: no I/O.

const reasons: Record<number, string> = {
  131026:
    'A mensagem não pôde ser entregue: confira se o número está correto e se ele tem uma conta do WhatsApp ativa.',
  131047: 'A mensagem não pôde ser entregue porque este número não conversou conosco nas últimas 24 horas.',
  131051: 'A mensagem não pôde ser entregue: o tipo de mensagem não é aceito por este número.',
  131030: 'Este número ainda não está na lista de destinatários permitidos da nossa conta de WhatsApp.',
  131021: 'Não é possível enviar a mensagem para este número.',
  131049: 'O WhatsApp não entregou a mensagem agora. Tente novamente mais tarde.',
  131056: 'Muitas mensagens foram enviadas para este número em pouco tempo. Aguarde um pouco e tente novamente.',
}

export const genericDeliveryFailure =
  'Não conseguimos entregar a mensagem pelo WhatsApp. Confira o número e tente novamente.'

export function deliveryFailureReason(code: number | null | undefined): string {
  return (code !== null && code !== undefined && reasons[code]) || genericDeliveryFailure
}
