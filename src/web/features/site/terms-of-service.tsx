import type { ReactNode } from 'react'
import { Link } from 'react-router'
import type { SiteConfig } from '@/domain/contracts/site'
import { paths } from '@/web/app/paths'
import { formatPhone, type LegalSection } from './legal-document'

const linkClass = 'text-primary underline underline-offset-4'

/** The terms of service of the subscription plans. */
export function termsOfService(site: SiteConfig): { intro: ReactNode; sections: LegalSection[] } {
  const company = site.companyLegalName.toLocaleUpperCase('pt-BR')
  const phone = formatPhone(site.supportWhatsapp)
  const intro = (
    <>
      <p>
        Estes Termos de Serviço regulam a contratação e o uso dos planos de assinatura da plataforma de atendimento
        multicanal oferecida pela <strong>{company}</strong>, inscrita no CNPJ sob o nº {site.companyCnpj}, com sede em{' '}
        {site.companyAddress} (“nós”), por você, pessoa física ou jurídica que cria uma conta (“cliente” ou “você”).
      </p>
      <p>
        Ao criar uma conta ou contratar um plano, você declara que leu, entendeu e aceita estes Termos e a{' '}
        <Link to={paths.privacy} className={linkClass}>
          Política de Privacidade
        </Link>
        . Se não concordar, não use o serviço.
      </p>
    </>
  )

  const sections: LegalSection[] = [
    {
      id: 'objeto',
      title: 'Objeto',
      body: (
        <>
          <p>
            Oferecemos, na modalidade de software como serviço (SaaS), o direito de uso da plataforma de atendimento
            multicanal, que reúne WhatsApp, Instagram, Facebook, e-mail e outros canais em um único painel, com vários
            atendentes conectados ao mesmo número, transferência entre departamentos, respostas rápidas, etiquetas e
            chatbots, nos limites de números (caixas) e de atendentes do plano contratado.
          </p>
          <p>
            Este site serve para contratar, pagar e gerenciar as assinaturas. O acesso à plataforma de atendimento é
            feito no endereço informado na área “Minha conta” do painel, com o seu e-mail como login; a senha da
            plataforma é gerenciada nela própria, pela opção de recuperação de senha.
          </p>
          <p>
            O uso, pela plataforma, de canais de terceiros (como WhatsApp, Instagram e Facebook) também está sujeito aos
            termos e às políticas desses terceiros, que você se compromete a respeitar.
          </p>
        </>
      ),
    },
    {
      id: 'conta',
      title: 'Conta e elegibilidade',
      body: (
        <ul>
          <li>
            Para criar uma conta, você deve ter <strong>18 (dezoito) anos ou mais</strong> e plena capacidade civil.
            Quem contrata em nome de uma empresa declara ter poderes para representá-la.
          </li>
          <li>
            Você deve informar dados verdadeiros e atualizados — nome, empresa, número de WhatsApp e e-mail — e
            confirmar o número por código enviado pelo WhatsApp e o e-mail pelo link de confirmação.
          </li>
          <li>
            Quando disponível, o login por meio de uma rede social também estará sujeito aos termos dessa rede; você
            continua responsável pela conta acessada dessa forma.
          </li>
          <li>
            Você é responsável por manter a senha em sigilo e por todas as atividades feitas na sua conta. Avise-nos
            imediatamente se suspeitar de uso não autorizado.
          </li>
        </ul>
      ),
    },
    {
      id: 'planos',
      title: 'Planos, preços e cobrança',
      body: (
        <ul>
          <li>
            Os planos, seus recursos e preços estão descritos na página{' '}
            <Link to={paths.plans} className={linkClass}>
              Planos de assinatura
            </Link>
            . Os valores são cobrados <strong>mensalmente, em reais (R$)</strong>, de forma antecipada, a cada período
            de um mês contado a partir da contratação.
          </li>
          <li>
            A assinatura é renovada automaticamente ao fim de cada período até ser cancelada. Mudanças de preço serão
            avisadas com pelo menos 30 (trinta) dias de antecedência e só valem a partir do período seguinte ao aviso.
          </li>
          <li>
            Em caso de atraso, a assinatura fica com a situação “Vencida” e o acesso pode ser suspenso até a
            regularização. Persistindo o atraso por mais de 30 (trinta) dias, a assinatura poderá ser cancelada.
          </li>
        </ul>
      ),
    },
    {
      id: 'pagamento',
      title: 'Formas de pagamento e ativação',
      body: (
        <ul>
          <li>
            <strong>PIX:</strong> geramos uma fatura com o código PIX “copia e cola” e o QR Code, com vencimento em 3
            (três) dias. A ativação é <strong>manual, em até 24 (vinte e quatro) horas</strong> após o pagamento, quando
            a nossa equipe confirma o recebimento. Nas renovações, uma nova fatura PIX é gerada a cada período.
          </li>
          <li>
            <strong>Cartão de crédito:</strong> o pagamento é processado pela Stripe, em ambiente seguro; não recebemos
            nem guardamos os dados completos do seu cartão. A ativação é imediata após a aprovação, e as renovações são
            cobradas automaticamente no mesmo cartão.
          </li>
          <li>Os comprovantes dos pagamentos ficam disponíveis na área “Pagamentos” do painel.</li>
        </ul>
      ),
    },
    {
      id: 'cancelamento',
      title: 'Cancelamento e direito de arrependimento',
      body: (
        <>
          <p>
            Você pode cancelar a assinatura a qualquer momento, pelo botão “Cancelar” em “Minhas assinaturas”, sem
            multa. O cancelamento vale <strong>no fim do período de cobrança em curso</strong>: até lá, o acesso
            continua normal e nenhuma nova cobrança é feita. Não há devolução proporcional do período já iniciado, salvo
            quando a lei exigir.
          </p>
          <p>
            Se você contratar como consumidor, poderá desistir da primeira contratação em até 7 (sete) dias, com
            devolução integral do valor pago, conforme o art. 49 do Código de Defesa do Consumidor. Basta nos procurar
            pelo WhatsApp {phone}.
          </p>
        </>
      ),
    },
    {
      id: 'upgrade',
      title: 'Troca de plano (upgrade)',
      body: (
        <p>
          Assinaturas ativas podem passar para um plano de valor maior a qualquer momento, pelo botão “Trocar Plano”.
          Nesse caso, cobramos apenas o <strong>valor proporcional</strong> da diferença entre os planos pelos dias que
          faltam no período atual; a partir do período seguinte, vale o preço do novo plano. No PIX, o novo plano é
          liberado após a confirmação do pagamento da diferença; no cartão, a diferença é cobrada no cartão cadastrado.
          Para passar a um plano de valor menor, cancele a assinatura atual e contrate o novo plano ao fim do período.
        </p>
      ),
    },
    {
      id: 'uso-aceitavel',
      title: 'Uso aceitável',
      body: (
        <>
          <p>Ao usar a plataforma, você se compromete a não:</p>
          <ul>
            <li>
              enviar mensagens em massa não solicitadas (spam) ou contatar pessoas sem base legal, em desacordo com a
              LGPD e com as políticas do WhatsApp, do Instagram e do Facebook;
            </li>
            <li>
              divulgar conteúdo ilegal, fraudulento, ofensivo, discriminatório ou que viole direitos de terceiros,
              inclusive de propriedade intelectual;
            </li>
            <li>praticar golpes, phishing ou enviar programas maliciosos;</li>
            <li>
              tentar acessar áreas ou dados sem autorização, copiar, fazer engenharia reversa ou sobrecarregar a
              plataforma;
            </li>
            <li>revender o serviço ou compartilhar o acesso além dos limites do plano contratado.</li>
          </ul>
          <p>
            Você é o controlador dos dados dos seus clientes tratados na plataforma e responde pelo uso que faz deles. O
            descumprimento destas regras pode levar à suspensão ou ao cancelamento da conta, sem prejuízo de outras
            medidas cabíveis. Bloqueios de números feitos pela Meta em razão do uso indevido pelo cliente não geram
            dever de indenizar de nossa parte.
          </p>
        </>
      ),
    },
    {
      id: 'disponibilidade',
      title: 'Disponibilidade e suporte',
      body: (
        <>
          <p>
            Trabalhamos para manter o serviço disponível 24 horas por dia, 7 dias por semana, mas ele pode ficar
            indisponível temporariamente por manutenções (avisadas com antecedência sempre que possível), falhas de
            conexão ou de fornecedores, ou por mudanças e instabilidades nas plataformas de terceiros integradas, como
            WhatsApp, Instagram e Facebook, que não controlamos.
          </p>
          <p>O suporte é prestado pelo WhatsApp {phone}, em dias úteis, em horário comercial.</p>
        </>
      ),
    },
    {
      id: 'responsabilidade',
      title: 'Limitação de responsabilidade',
      body: (
        <>
          <p>
            Na máxima extensão permitida pela lei, não respondemos por lucros cessantes, perda de oportunidades ou
            outros danos indiretos, nem por falhas causadas por terceiros, por caso fortuito ou força maior, ou pelo uso
            da plataforma em desacordo com estes Termos. Nossa responsabilidade total fica limitada ao valor pago por
            você nos 12 (doze) meses anteriores ao fato.
          </p>
          <p>
            Nada nestes Termos afasta direitos que o Código de Defesa do Consumidor garante a quem contrata como
            consumidor.
          </p>
        </>
      ),
    },
    {
      id: 'propriedade-intelectual',
      title: 'Propriedade intelectual',
      body: (
        <p>
          A plataforma, a marca, o site e seus conteúdos pertencem à {company} ou a seus licenciantes. A assinatura
          concede apenas um direito de uso pessoal, não exclusivo e intransferível durante a vigência do plano. Os dados
          e conteúdos que você insere continuam sendo seus.
        </p>
      ),
    },
    {
      id: 'alteracoes',
      title: 'Alterações destes Termos',
      body: (
        <p>
          Podemos atualizar estes Termos. A data da última atualização fica no início do documento, e mudanças
          relevantes serão avisadas por e-mail ou no site com antecedência razoável. Se você não concordar, poderá
          cancelar a assinatura; continuar usando o serviço depois da vigência significa aceitar a nova versão.
        </p>
      ),
    },
    {
      id: 'lei-e-foro',
      title: 'Lei aplicável e foro',
      body: (
        <p>
          Estes Termos são regidos pelas leis da República Federativa do Brasil. Fica eleito o foro da Comarca de
          Fortaleza/CE para resolver qualquer questão relacionada a eles, ressalvado o direito de quem contrata como
          consumidor de propor ação no foro do seu domicílio.
        </p>
      ),
    },
    {
      id: 'contato',
      title: 'Contato',
      body: (
        <p>
          {company} — CNPJ {site.companyCnpj} — {site.companyAddress}. WhatsApp: {phone}.
        </p>
      ),
    },
  ]
  return { intro, sections }
}
