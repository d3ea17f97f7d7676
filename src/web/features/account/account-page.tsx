import { zodResolver } from '@hookform/resolvers/zod'
import { useQuery } from '@tanstack/react-query'
import { ExternalLink } from 'lucide-react'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import type { Profile } from '@/domain/contracts/billing'
import { Button } from '@/web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '@/web/components/ui/card'
import { DialogActions, DialogFrame } from '@/web/components/ui/dialog-frame'
import { PendingButton } from '@/web/components/ui/states'
import { Input } from '@/web/components/ui/input'
import { Field } from '@/web/components/form/field'
import { PageHeader } from '@/web/components/ui/page-header'
import { QueryState } from '@/web/components/query-state'
import { applyServerErrors } from '@/web/lib/form-errors'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSessionUser } from '@/web/lib/session'
import { WhatsAppVerification } from '@/web/shared/auth/whatsapp-verification'
import { useSiteConfig } from '@/web/lib/site-config'
import { profileQuery, useChangeWhatsApp, useUpdateProfile } from './api'
import { MyDataSection } from './my-data-section'
import {
  type ProfileFormInput,
  type ProfileFormOutput,
  profileFormDefaults,
  profileFormSchema,
  profileServerFields,
} from './profile-form'
import { TwoFactorCard } from './two-factor-card'

/** 'account': the profile (name, company, WhatsApp) and the access data of the chat platform. */
export function AccountPage() {
  useDocumentTitle('Minha conta')
  const profile = useQuery(profileQuery())
  const { user } = useSessionUser()
  return (
    <div className="flex flex-col gap-6">
      <PageHeader title="Minha conta" description="Seus dados de cadastro e o acesso à plataforma de atendimento." />
      <QueryState query={profile} loadingLabel="Carregando perfil…">
        {(data) => (
          <div className="grid items-start gap-6 lg:grid-cols-[3fr_2fr]">
            <ProfileCard profile={data} />
            <PlatformAccessCard email={data.email} />
            {user ? <TwoFactorCard user={user} /> : null}
          </div>
        )}
      </QueryState>
      {profile.isSuccess ? <MyDataSection /> : null}
    </div>
  )
}

function ProfileCard({ profile }: { profile: Profile }) {
  const update = useUpdateProfile()
  const [changingNumber, setChangingNumber] = useState(false)
  const form = useForm<ProfileFormInput, unknown, ProfileFormOutput>({
    resolver: zodResolver(profileFormSchema),
    values: profileFormDefaults(profile),
  })
  const { errors } = form.formState
  const onSubmit = form.handleSubmit((values) =>
    update.mutate(values, { onError: (error) => applyServerErrors(error, form.setError, profileServerFields) }),
  )

  return (
    <Card>
      <CardHeader>
        <h2 className="text-xl font-semibold leading-none tracking-tight">Perfil</h2>
        <CardDescription>O e-mail é o seu login e não pode ser alterado aqui.</CardDescription>
      </CardHeader>
      <CardContent>
        <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
          <Field id="profile-email" label="E-mail">
            <Input type="email" value={profile.email} readOnly />
          </Field>
          <Field id="profile-name" label="Nome" error={errors.name?.message}>
            <Input autoComplete="name" {...form.register('name')} />
          </Field>
          <Field id="profile-company" label="Empresa" error={errors.company_name?.message}>
            <Input autoComplete="organization" {...form.register('company_name')} />
          </Field>
          <Field id="profile-whatsapp" label="WhatsApp">
            {(control) => (
              <div className="flex gap-2">
                <Input {...control} type="tel" value={profile.whatsappNumber} readOnly className="flex-1" />
                <Button variant="outline" onClick={() => setChangingNumber(true)}>
                  Alterar
                </Button>
              </div>
            )}
          </Field>
          <PendingButton type="submit" className="self-start" pending={update.isPending}>
            Salvar
          </PendingButton>
        </form>
      </CardContent>
      <ChangeWhatsAppDialog open={changingNumber} onOpenChange={setChangingNumber} current={profile.whatsappNumber} />
    </Card>
  )
}

function ChangeWhatsAppDialog({
  open,
  onOpenChange,
  current,
}: {
  open: boolean
  onOpenChange: (open: boolean) => void
  current: string
}) {
  const change = useChangeWhatsApp()
  const [verified, setVerified] = useState<string | null>(null)

  function close(next: boolean) {
    if (!next) setVerified(null)
    onOpenChange(next)
  }

  return (
    <DialogFrame
      open={open}
      onOpenChange={close}
      busy={change.isPending}
      title="Alterar WhatsApp"
      description={`Enviaremos um código para o novo número. Depois de verificá-lo, salve para trocar o número atual (${current}).`}
    >
      {/* Remounted on every opening, so a half-finished verification does not come back. */}
      {open ? (
        <WhatsAppVerification id="new-whatsapp" label="Novo número de WhatsApp" onVerifiedChange={setVerified} />
      ) : null}
      <DialogActions
        onBack={() => close(false)}
        pending={change.isPending}
        disabled={verified === null}
        action="Salvar número"
        onAction={() => {
          if (verified) change.mutate(verified, { onSuccess: () => close(false) })
        }}
      />
    </DialogFrame>
  )
}

function PlatformAccessCard({ email }: { email: string }) {
  const { chatPlatformUrl } = useSiteConfig()
  return (
    <Card>
      <CardHeader>
        <h2 className="text-xl font-semibold leading-none tracking-tight">Acesso à plataforma</h2>
        <CardDescription>Use estes dados para entrar na plataforma de atendimento.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4 text-sm">
        <dl className="flex flex-col gap-3">
          <div className="flex flex-col gap-0.5">
            <dt className="text-muted-foreground">Endereço da plataforma</dt>
            <dd>
              <a
                href={chatPlatformUrl}
                target="_blank"
                rel="noopener noreferrer"
                className="inline-flex items-center gap-1 break-all font-medium text-primary underline-offset-4 hover:underline"
              >
                {chatPlatformUrl}
                <ExternalLink className="size-3.5 shrink-0" aria-hidden="true" />
                <span className="sr-only">(abre em nova aba)</span>
              </a>
            </dd>
          </div>
          <div className="flex flex-col gap-0.5">
            <dt className="text-muted-foreground">Login</dt>
            <dd className="break-all font-medium">{email}</dd>
          </div>
        </dl>
        <p className="rounded-md bg-muted p-3">
          A senha é gerenciada na própria plataforma de atendimento. Para criar ou trocar a sua, use a opção{' '}
          <strong>“Esqueci minha senha”</strong> na tela de entrada da plataforma.
        </p>
      </CardContent>
    </Card>
  )
}
