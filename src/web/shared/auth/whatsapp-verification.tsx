import { CircleAlert, CircleCheck } from 'lucide-react'
import { type KeyboardEvent, useEffect, useRef, useState } from 'react'
import { toast } from 'sonner'
import { Field } from '@/web/components/form/field'
import { Button } from '@/web/components/ui/button'
import { Input } from '@/web/components/ui/input'
import { PendingButton } from '@/web/components/ui/states'
import { toasts } from '@/web/lib/toasts'
import { useCodeDeliveryStatus } from './code-status'
import { useSendWhatsAppCode, useVerifyWhatsAppCode } from './whatsapp-api'
import { codeDigits, isCompleteCode, isWhatsAppNumber, numberDigits } from './whatsapp-verification-form'

export type WhatsAppVerificationProps = {
  /** Prefix of the element ids; give each instance on a page its own. */
  id?: string
  /** The number field's label (its accessible name). */
  label?: string
  defaultNumber?: string
  /** The verified number, or null once the person starts changing it again. */
  onVerifiedChange: (verifiedNumber: string | null) => void
  /** An error of the surrounding form, shown under the number. */
  error?: string | undefined
}

type Step = 'number' | 'code' | 'verified'

/**
 * The spec's WhatsApp check: number → 'Enviar código' → 'Código de verificação' → 'Verificar'. It holds no form of
 * its own (it sits inside the sign-up form, or inside a dialog), so Enter runs the step instead of submitting.
 */
export function WhatsAppVerification({
  id = 'whatsapp',
  label = 'WhatsApp',
  defaultNumber = '',
  onVerifiedChange,
  error,
}: WhatsAppVerificationProps) {
  const [number, setNumber] = useState(numberDigits(defaultNumber))
  const [code, setCode] = useState('')
  const [step, setStep] = useState<Step>('number')
  // When the last code was sent: the page then asks whether Meta delivered it (a failure names the reason).
  const [sentAt, setSentAt] = useState<number | null>(null)
  const delivery = useCodeDeliveryStatus(number, step === 'code' ? sentAt : null)
  const deliveryFailed = step === 'code' && delivery.data?.status === 'failed' ? delivery.data.reason : null
  const sendCode = useSendWhatsAppCode()
  const verifyCode = useVerifyWhatsAppCode()
  const numberRef = useRef<HTMLInputElement>(null)
  const codeRef = useRef<HTMLInputElement>(null)
  const changeRef = useRef<HTMLButtonElement>(null)
  const moved = useRef(false)

  // The control the person used disappears with each step: move the focus to the next one.
  useEffect(() => {
    if (!moved.current) return
    if (step === 'code') codeRef.current?.focus()
    if (step === 'verified') changeRef.current?.focus()
    if (step === 'number') numberRef.current?.focus()
  }, [step])

  function goTo(next: Step) {
    moved.current = true
    setStep(next)
  }

  function onNumberChange(value: string) {
    setNumber(numberDigits(value))
    if (step === 'code') {
      // A code belongs to the number it was sent to.
      setCode('')
      setStep('number')
    }
  }

  function send() {
    if (sendCode.isPending || step === 'verified') return
    if (!isWhatsAppNumber(number)) {
      toast.error(toasts.invalidNumber.error, { description: toasts.invalidNumber.description })
      numberRef.current?.focus()
      return
    }
    sendCode.mutate(number, {
      onSuccess: () => {
        setCode('')
        setSentAt(Date.now())
        goTo('code')
      },
    })
  }

  function verify() {
    if (!isCompleteCode(code) || verifyCode.isPending) return
    verifyCode.mutate(
      { phoneNumber: number, code },
      {
        onSuccess: () => {
          goTo('verified')
          onVerifiedChange(number)
        },
      },
    )
  }

  function changeNumber() {
    setCode('')
    goTo('number')
    onVerifiedChange(null)
  }

  function onEnter(action: () => void) {
    return (event: KeyboardEvent<HTMLInputElement>) => {
      if (event.key !== 'Enter') return
      event.preventDefault()
      action()
    }
  }

  const verified = step === 'verified'

  return (
    <div className="flex flex-col gap-3">
      <Field
        id={`${id}-number`}
        label={label}
        hint={
          verified ? (
            <>
              <CircleCheck className="size-4" aria-hidden="true" />
              Número verificado
            </>
          ) : (
            'Com DDI e DDD, apenas números (ex.: 5585999990000). Enviaremos um código pelo WhatsApp.'
          )
        }
        hintClassName={verified ? 'flex items-center gap-1.5 text-sm font-medium text-primary' : undefined}
        error={error}
      >
        {(control) => (
          <div className="flex flex-col gap-2 sm:flex-row">
            <div className="relative flex-1">
              <Input
                {...control}
                ref={numberRef}
                type="tel"
                inputMode="numeric"
                autoComplete="tel"
                value={number}
                readOnly={verified}
                className={verified ? 'pr-10' : undefined}
                onChange={(event) => onNumberChange(event.target.value)}
                onKeyDown={onEnter(send)}
              />
              {verified ? (
                <CircleCheck
                  className="pointer-events-none absolute right-3 top-1/2 size-5 -translate-y-1/2 text-primary"
                  aria-hidden="true"
                />
              ) : null}
            </div>
            {verified ? (
              <Button ref={changeRef} variant="outline" onClick={changeNumber}>
                Alterar número
              </Button>
            ) : (
              <PendingButton
                variant={step === 'code' ? 'outline' : 'default'}
                pending={sendCode.isPending}
                onClick={send}
              >
                Enviar código
              </PendingButton>
            )}
          </div>
        )}
      </Field>

      {step === 'code' ? (
        <div className="flex flex-col gap-2 rounded-md border border-border bg-muted/40 p-3">
          <Field id={`${id}-code`} label="Código de verificação" hint={`Digite os 6 dígitos enviados para ${number}.`}>
            {(control) => (
              <div className="flex flex-col gap-2 sm:flex-row">
                <Input
                  {...control}
                  ref={codeRef}
                  type="text"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={6}
                  value={code}
                  className="flex-1 tracking-[0.3em]"
                  onChange={(event) => setCode(codeDigits(event.target.value))}
                  onKeyDown={onEnter(verify)}
                />
                <PendingButton disabled={!isCompleteCode(code)} pending={verifyCode.isPending} onClick={verify}>
                  Verificar
                </PendingButton>
              </div>
            )}
          </Field>
          {deliveryFailed ? (
            <p role="alert" className="flex items-start gap-1.5 text-sm font-medium text-destructive">
              <CircleAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
              <span>
                O código não chegou ao número {number}. Confira o número e envie um novo código. {deliveryFailed}
              </span>
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}
