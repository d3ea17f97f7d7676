/** The WhatsApp check's own rules for what is typed, before anything is sent (the server checks again). */

/** A number as the API takes it: country and area code, digits only, 10 to 15 of them (e.g. 5585999990000). */
export function isWhatsAppNumber(digits: string): boolean {
  return /^\d{10,15}$/.test(digits)
}

/** What is typed in the number field, kept to its digits ('+55 (85) 99999-0000' → '5585999990000'). */
export function numberDigits(typed: string): string {
  return typed.replace(/\D/g, '')
}

/** What is typed in the code field: its digits, at most the code's 6. */
export function codeDigits(typed: string): string {
  return numberDigits(typed).slice(0, 6)
}

/** 'Verificar' is offered once the 6 digits are there. */
export function isCompleteCode(code: string): boolean {
  return code.length === 6
}
