import { zodResolver } from '@hookform/resolvers/zod'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useId, useMemo } from 'react'
import { useForm, useWatch } from 'react-hook-form'
import type { z } from 'zod'
import type { pixSettingsSchema } from '@/domain/contracts/billing'
import { errorText } from '@/domain/errors'
import {
  buildPixBrCode,
  pixBeneficiaryCityMax,
  pixBeneficiaryNameMax,
  pixDescriptionMax,
  pixKeyKind,
} from '@/domain/pix'
import { PixCodeField } from '@/web/components/pix-code-field'
import { QrCode } from '@/web/components/qr-code'
import { Button } from '@/web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '@/web/components/ui/card'
import { Input, Textarea } from '@/web/components/ui/input'
import { Field } from '@/web/components/form/field'
import { PageHeader } from '@/web/components/ui/page-header'
import { QueryState } from '@/web/components/query-state'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { cardInfoQuery, pixSettingsQuery, useSavePixSettings } from './api'
import { RegisterWebhookButton } from '@/web/features/admin/payments/pix-api-parts'
import { useSiteConfig } from '@/web/lib/site-config'
import {
  type PixSettingsFormOutput,
  type PixSettingsFormValues,
  pixKeyHint,
  pixSettingsFormDefaults,
  pixSettingsFormSchema,
} from './pix-settings-form'

const sampleCents = 100

/** Admin 'Configurações': the PIX receiving account (with a live sample charge) and the card provider set-up. */
export function SettingsPage() {
  useDocumentTitle('Configurações')
  const settings = useQuery(pixSettingsQuery())
  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Configurações"
        description="Dados da conta que recebe os pagamentos PIX e integração do pagamento com cartão."
      />
      <QueryState query={settings}>{(data) => <PixSettingsForm settings={data.settings} />}</QueryState>
      <CardPaymentHelp />
    </div>
  )
}

function PixSettingsForm({ settings }: { settings: z.infer<typeof pixSettingsSchema> | null }) {
  const initial = useMemo(() => pixSettingsFormDefaults(settings), [settings])
  const updatedAt = settings?.updatedAt ?? null
  const save = useSavePixSettings()
  const autoPix = useSiteConfig().pixProvider === 'api-pix'
  const { register, handleSubmit, formState, control, reset } = useForm<
    PixSettingsFormValues,
    unknown,
    PixSettingsFormOutput
  >({
    resolver: zodResolver(pixSettingsFormSchema),
    defaultValues: initial,
  })
  const errors = formState.errors
  const values = useWatch({ control }) as Partial<PixSettingsFormValues>

  // A reload of the saved settings (e.g. after saving) becomes the new baseline.
  useEffect(() => {
    reset(initial)
  }, [initial, reset])

  const key = values.pix_key ?? ''
  const keyHint = pixKeyHint(key)
  const name = values.beneficiary_name ?? ''
  const city = values.beneficiary_city ?? ''

  const onSubmit = handleSubmit((input) => save.mutate(input))

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,22rem)]">
      <Card>
        <CardHeader>
          <h2 className="text-xl font-semibold leading-none tracking-tight">PIX</h2>
          <CardDescription>
            Os clientes pagam para esta chave. O código PIX de cada fatura usa estes dados.
            {updatedAt ? ` Última alteração em ${formatDate(updatedAt)}.` : ''}
          </CardDescription>
        </CardHeader>
        <CardContent>
          <form className="flex flex-col gap-4" noValidate onSubmit={onSubmit}>
            <Field
              label="Chave PIX"
              hint={keyHint.text}
              hintClassName={keyHint.invalid ? 'text-sm text-destructive' : undefined}
              error={errors.pix_key?.message}
            >
              <Input
                autoComplete="off"
                spellCheck={false}
                placeholder="CPF, CNPJ, e-mail, +55… ou chave aleatória"
                {...register('pix_key')}
              />
            </Field>
            <Field
              label="Nome do beneficiário"
              hint={`Como aparece no app do banco. ${name.length}/${pixBeneficiaryNameMax} caracteres.`}
              error={errors.beneficiary_name?.message}
            >
              <Input maxLength={pixBeneficiaryNameMax} autoComplete="off" {...register('beneficiary_name')} />
            </Field>
            <Field
              label="Cidade do beneficiário"
              hint={`${city.length}/${pixBeneficiaryCityMax} caracteres.`}
              error={errors.beneficiary_city?.message}
            >
              <Input maxLength={pixBeneficiaryCityMax} autoComplete="off" {...register('beneficiary_city')} />
            </Field>
            <Field
              label="Descrição"
              hint="Opcional. Aparece para quem paga, quando o banco mostra."
              error={errors.description?.message}
            >
              <Textarea rows={2} maxLength={pixDescriptionMax} className="min-h-16" {...register('description')} />
            </Field>
            <div className="flex flex-wrap gap-2">
              <Button type="submit" disabled={save.isPending}>
                {save.isPending ? 'Salvando…' : 'Salvar'}
              </Button>
              {autoPix ? <RegisterWebhookButton /> : null}
            </div>
          </form>
        </CardContent>
      </Card>
      <PixPreview pixKey={key} name={name} city={city} description={values.description ?? ''} />
    </div>
  )
}

/** A sample R$ 1,00 charge built in the browser from what is typed, so a wrong key shows before saving. */
function PixPreview({
  pixKey,
  name,
  city,
  description,
}: {
  pixKey: string
  name: string
  city: string
  description: string
}) {
  const brCode = useMemo(() => {
    try {
      return buildPixBrCode({
        key: pixKey,
        beneficiaryName: name,
        beneficiaryCity: city,
        description,
        amountCents: sampleCents,
        txid: 'EXEMPLO',
      })
    } catch {
      return null
    }
  }, [pixKey, name, city, description])

  return (
    <Card className="self-start">
      <CardHeader>
        <h2 className="text-xl font-semibold leading-none tracking-tight">Pré-visualização</h2>
        <CardDescription>
          Uma cobrança de exemplo de {formatBRL(sampleCents)} com os dados do formulário.
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {brCode ? (
          <>
            <QrCode value={brCode} size={200} label="QR Code PIX de exemplo" />
            <div className="flex flex-col gap-2">
              <PixCodeField code={brCode} rows={5} />
            </div>
          </>
        ) : (
          <p role="status" className="rounded-md bg-muted p-4 text-sm text-muted-foreground">
            {pixKey.trim() && pixKeyKind(pixKey) === null
              ? errorText.pix_key_invalid
              : 'Preencha a chave PIX, o nome e a cidade do beneficiário para ver o código de exemplo.'}
          </p>
        )}
      </CardContent>
    </Card>
  )
}

const modeLabel: Record<'stripe' | 'simulator', string> = {
  stripe: 'Stripe',
  simulator: 'Simulador local (Stripe não configurado)',
}

/** What to register at Stripe: the checkout function and the webhook endpoint with its events. */
function CardPaymentHelp() {
  const info = useQuery(cardInfoQuery())
  const webhookId = useId()
  return (
    <Card>
      <CardHeader>
        <h2 className="text-xl font-semibold leading-none tracking-tight">Pagamento com cartão</h2>
        <CardDescription>
          Os pagamentos com cartão são processados pelo Stripe. As chaves ficam nas variáveis de ambiente
          STRIPE_SECRET_KEY e STRIPE_WEBHOOK_SECRET do servidor.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <QueryState query={info}>
          {(data) => (
            <div className="flex flex-col gap-4 text-sm">
              <p>
                Modo: <strong>{modeLabel[data.mode]}</strong>
              </p>
              <p>
                O checkout é criado pela função{' '}
                <code className="rounded bg-muted px-1.5 py-0.5 font-mono">{data.checkoutFunction}</code>, que devolve o
                endereço da página de pagamento do Stripe.
              </p>
              <div className="flex flex-col gap-2">
                <label htmlFor={webhookId} className="font-medium">
                  Endpoint do webhook
                </label>
                <Input
                  id={webhookId}
                  readOnly
                  value={data.webhookUrl}
                  className="font-mono"
                  onFocus={(e) => e.currentTarget.select()}
                />
                <p className="text-muted-foreground">
                  No painel do Stripe, em Desenvolvedores → Webhooks, adicione este endpoint com os eventos abaixo e
                  copie o segredo de assinatura para STRIPE_WEBHOOK_SECRET.
                </p>
              </div>
              <div className="flex flex-col gap-2">
                <p className="font-medium">Eventos</p>
                <ul className="flex flex-wrap gap-2">
                  {data.events.map((event) => (
                    <li key={event}>
                      <code className="rounded bg-muted px-1.5 py-0.5 font-mono text-xs">{event}</code>
                    </li>
                  ))}
                </ul>
              </div>
            </div>
          )}
        </QueryState>
      </CardContent>
    </Card>
  )
}
