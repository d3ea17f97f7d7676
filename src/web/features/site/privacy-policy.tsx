import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { paths } from '@/web/app/paths'
import type { SiteConfig } from '@/domain/contracts/site'
import { formatPhone, type LegalSection } from './legal-document'

/** The privacy policy: what the LGPD (Lei 13.709/2018, arts. 9 and 18) asks a controller to tell its holders. */
export function privacyPolicy(site: SiteConfig): { intro: ReactNode; sections: LegalSection[] } {
  const company = site.companyLegalName.toLocaleUpperCase('pt-BR')
  const phone = formatPhone(site.supportWhatsapp)
  const contact = (
    <>
      pelo WhatsApp <strong>{phone}</strong>, iniciando a mensagem com a palavra “LGPD”, ou por correspondência
      endereçada ao Encarregado de Proteção de Dados, em {site.companyAddress}
    </>
  )
  const intro = (
    <>
      <p>
        Esta Política de Privacidade explica como a <strong>{company}</strong>, inscrita no CNPJ sob o nº{' '}
        {site.companyCnpj}, com sede em {site.companyAddress} (“nós”), trata os dados pessoais de quem visita este site
        e de quem contrata os planos de assinatura da nossa plataforma de atendimento multicanal (“você”).
      </p>
      <p>
        Tratamos dados pessoais de acordo com a Lei Geral de Proteção de Dados Pessoais (Lei nº 13.709/2018 — “LGPD”), o
        Marco Civil da Internet (Lei nº 12.965/2014) e o Código de Defesa do Consumidor (Lei nº 8.078/1990). Leia este
        documento junto com os{' '}
        <Link to={paths.terms} className="text-primary underline underline-offset-4">
          Termos de Serviço
        </Link>
        . Se tiver qualquer dúvida, fale conosco pelos canais da seção “Encarregado de Proteção de Dados (DPO)”.
      </p>
    </>
  )

  const sections: LegalSection[] = [
    {
      id: 'controlador',
      title: 'Quem é o controlador dos seus dados',
      body: (
        <>
          <p>
            A {company} (CNPJ {site.companyCnpj}) é a controladora dos dados pessoais tratados neste site e na gestão
            das assinaturas, ou seja, é quem toma as decisões sobre esse tratamento (art. 5º, VI, da LGPD).
          </p>
          <p>
            Dentro da plataforma de atendimento, as conversas e os dados dos <em>seus</em> clientes são tratados por nós
            na qualidade de operadora, seguindo as suas instruções: nesse caso, a sua empresa é a controladora desses
            dados e responde por informar seus clientes e por ter uma base legal para contatá-los.
          </p>
        </>
      ),
    },
    {
      id: 'dados-coletados',
      title: 'Quais dados coletamos',
      body: (
        <>
          <ul>
            <li>
              <strong>Dados de cadastro:</strong> nome, nome da empresa, número de WhatsApp, e-mail e senha. A senha é
              guardada apenas de forma cifrada (hash) e nunca é visível para a nossa equipe.
            </li>
            <li>
              <strong>Dados de verificação:</strong> os códigos de 6 dígitos que enviamos ao seu WhatsApp e os links de
              confirmação que enviamos ao seu e-mail, com a data e o número de tentativas.
            </li>
            <li>
              <strong>Login por rede social:</strong> hoje o acesso é feito somente com e-mail e senha; não oferecemos
              login por meio de rede social e não recebemos dados de redes sociais. Se um dia oferecermos essa opção,
              esta Política será atualizada antes, dizendo quais dados a rede nos enviaria.
            </li>
            <li>
              <strong>Dados da assinatura e de pagamento:</strong> plano contratado, situação da assinatura, períodos de
              cobrança, faturas, valores, vencimentos, forma de pagamento e comprovantes. Os dados do cartão de crédito
              são digitados diretamente no ambiente da Stripe: não recebemos nem guardamos o número completo do cartão
              nem o código de segurança. No PIX, registramos a fatura, o valor e a confirmação do pagamento.
            </li>
            <li>
              <strong>Dados de acesso e segurança:</strong> endereço IP, data e hora dos acessos, tipo de navegador e
              dispositivo, tentativas de login e registros das operações feitas na conta (como pagamentos, cancelamentos
              e trocas de plano).
            </li>
            <li>
              <strong>Comunicações:</strong> as mensagens que você nos envia pelo WhatsApp ou por e-mail, por exemplo
              para pedir suporte.
            </li>
          </ul>
          <p>
            Não pedimos dados pessoais sensíveis (como origem racial, saúde, religião ou biometria). Se você não
            fornecer os dados de cadastro, não será possível criar a conta nem contratar um plano.
          </p>
        </>
      ),
    },
    {
      id: 'finalidades',
      title: 'Para que usamos os dados e com qual base legal',
      body: (
        <>
          <p>
            Usamos seus dados apenas para as finalidades abaixo, cada uma amparada por uma base legal do art. 7º da
            LGPD:
          </p>
          <ul>
            <li>
              <strong>Criar e manter a sua conta, autenticar o acesso e prestar o serviço contratado</strong> — base
              legal: execução de contrato (art. 7º, V).
            </li>
            <li>
              <strong>Verificar o seu número de WhatsApp e o seu e-mail</strong> — execução de contrato (art. 7º, V) e
              legítimo interesse na prevenção de fraudes e de cadastros falsos (art. 7º, IX).
            </li>
            <li>
              <strong>Processar pagamentos, gerar faturas PIX, ativar, renovar, trocar e cancelar assinaturas</strong> —
              execução de contrato (art. 7º, V).
            </li>
            <li>
              <strong>Enviar avisos sobre a conta</strong> (confirmação de cadastro, redefinição de senha, faturas,
              confirmações de pagamento, cancelamentos e mudanças nestes documentos) — execução de contrato (art. 7º,
              V).
            </li>
            <li>
              <strong>Prestar suporte e responder às suas solicitações</strong> — execução de contrato (art. 7º, V) e
              legítimo interesse (art. 7º, IX).
            </li>
            <li>
              <strong>Proteger a conta e o serviço</strong> (limite de tentativas, detecção de abusos, registros de
              auditoria) — legítimo interesse (art. 7º, IX).
            </li>
            <li>
              <strong>Cumprir obrigações legais e regulatórias</strong>, como a guarda de registros de acesso e de
              documentos fiscais — cumprimento de obrigação legal (art. 7º, II).
            </li>
            <li>
              <strong>Defender nossos direitos em processos judiciais, administrativos ou arbitrais</strong> — exercício
              regular de direitos (art. 7º, VI).
            </li>
            <li>
              <strong>Enviar novidades e ofertas</strong>, somente se você autorizar — consentimento (art. 7º, I), que
              pode ser retirado a qualquer momento.
            </li>
          </ul>
          <p>
            Não vendemos dados pessoais, não os usamos para publicidade de terceiros e não tomamos decisões
            exclusivamente automatizadas que afetem os seus interesses.
          </p>
        </>
      ),
    },
    {
      id: 'compartilhamento',
      title: 'Com quem compartilhamos',
      body: (
        <>
          <p>Compartilhamos somente o necessário para cada finalidade, com:</p>
          <ul>
            <li>
              <strong>Processadores de pagamento:</strong> a Stripe, que processa os pagamentos com cartão de crédito em
              seu próprio ambiente seguro; e as instituições financeiras e de pagamento participantes do arranjo PIX do
              Banco Central do Brasil, pelas quais o seu pagamento PIX é feito e confirmado.
            </li>
            <li>
              <strong>Serviços de mensagens:</strong> a Meta Platforms (WhatsApp Business Platform), para enviar os
              códigos de verificação e as mensagens de atendimento pelo WhatsApp; e o nosso provedor de envio de
              e-mails, para as mensagens de confirmação, redefinição de senha e avisos da conta.
            </li>
            <li>
              <strong>Infraestrutura:</strong> provedores de hospedagem, banco de dados e cópias de segurança em nuvem,
              que guardam os dados em nosso nome.
            </li>
            <li>
              <strong>Autoridades:</strong> órgãos públicos e o Poder Judiciário, quando houver obrigação legal ou ordem
              de autoridade competente.
            </li>
            <li>
              <strong>Operações societárias:</strong> em caso de fusão, aquisição ou incorporação, com a empresa
              sucessora, que ficará obrigada a respeitar esta Política.
            </li>
          </ul>
          <p>
            Esses parceiros só podem usar os dados para prestar o serviço a nós ou cumprir a lei, e são escolhidos por
            adotarem medidas de segurança adequadas. A Stripe e a Meta também tratam dados como controladoras, segundo
            suas próprias políticas de privacidade.
          </p>
        </>
      ),
    },
    {
      id: 'transferencia-internacional',
      title: 'Transferência internacional de dados',
      body: (
        <p>
          Alguns parceiros, como a Stripe, a Meta e provedores de nuvem, podem armazenar ou processar dados em
          servidores fora do Brasil, inclusive nos Estados Unidos e na União Europeia. Essas transferências são feitas
          apenas nas hipóteses do art. 33 da LGPD — por exemplo, quando necessárias à execução do contrato com você ou
          amparadas por cláusulas contratuais que garantem um nível de proteção compatível com a lei brasileira.
        </p>
      ),
    },
    {
      id: 'retencao',
      title: 'Por quanto tempo guardamos os dados',
      body: (
        <>
          <ul>
            <li>
              <strong>Dados da conta</strong> (nome, e-mail, WhatsApp, empresa e senha): enquanto a conta existir.
              Quando você exclui a conta, eles são apagados na hora.
            </li>
            <li>
              <strong>Assinaturas, faturas e pagamentos:</strong> por 5 (cinco) anos, o prazo em que o Fisco pode lançar
              e cobrar tributos sobre essas receitas (arts. 173 e 174 do Código Tributário Nacional), e que também cobre
              o exercício regular de direitos (art. 27 do Código de Defesa do Consumidor). São guardados mesmo depois da
              exclusão da conta — valores, datas, plano e forma de pagamento —, mas anonimizados: sem nome, e-mail,
              WhatsApp ou empresa.
            </li>
            <li>
              <strong>Registros de auditoria</strong> (quem fez o quê e quando, em pagamentos, assinaturas e
              permissões): pelo mesmo prazo de 5 (cinco) anos dos registros financeiros que documentam, para provar o
              que aconteceu com cada cobrança. Quando a conta é excluída, os seus dados pessoais são retirados desses
              registros.
            </li>
            <li>
              <strong>Avisos enviados a você</strong> (faturas, confirmações, cancelamentos): guardamos que o aviso foi
              enviado, quando e sobre qual fatura; na exclusão da conta, o destinatário e o texto da mensagem são
              apagados.
            </li>
            <li>
              <strong>Registros de acesso à aplicação:</strong> por no mínimo 6 (seis) meses, como exige o art. 15 do
              Marco Civil da Internet.
            </li>
            <li>
              <strong>Códigos de verificação:</strong> valem por poucos minutos e são guardados apenas pelo tempo
              necessário para a verificação e a prevenção de abusos.
            </li>
            <li>
              <strong>Dados tratados com base no consentimento:</strong> até você retirar o consentimento.
            </li>
          </ul>
          <p>
            Terminados esses prazos, os dados são eliminados ou anonimizados, salvo as hipóteses de conservação do art.
            16 da LGPD.
          </p>
          <p>
            <strong>Quando você exclui a conta</strong> (em “Minha conta” › “Meus dados” › “Excluir minha conta”):
            apagamos nome, e-mail, WhatsApp, empresa e senha, encerramos todas as sessões, apagamos os códigos de
            verificação do seu número e retiramos os seus dados dos registros que precisamos manter (auditoria, avisos,
            eventos enviados à plataforma de atendimento e recebidos dos provedores de pagamento). O seu e-mail fica
            livre para um novo cadastro. Os pagamentos feitos com cartão também constam dos registros da Stripe, que os
            guarda segundo a política de privacidade dela.
          </p>
        </>
      ),
    },
    {
      id: 'seguranca',
      title: 'Como protegemos os dados',
      body: (
        <>
          <p>
            Adotamos medidas técnicas e administrativas para proteger os dados contra acessos não autorizados, perda,
            alteração ou divulgação indevida, entre elas: conexão cifrada (HTTPS), senhas guardadas apenas em forma de
            hash, cookie de sessão inacessível a scripts, controle de acesso por perfil, limite de tentativas de login e
            de envio de códigos, registros de auditoria das operações que envolvem pagamentos e permissões, e cópias de
            segurança.
          </p>
          <p>
            Nenhum sistema é totalmente invulnerável. Se ocorrer um incidente de segurança que possa causar risco ou
            dano relevante, comunicaremos você e a Autoridade Nacional de Proteção de Dados (ANPD), como determina o
            art. 48 da LGPD. Proteja também a sua senha e não a compartilhe.
          </p>
        </>
      ),
    },
    {
      id: 'direitos',
      title: 'Seus direitos como titular',
      body: (
        <>
          <p>Conforme o art. 18 da LGPD, você pode pedir a qualquer momento:</p>
          <ol>
            <li>a confirmação de que tratamos seus dados;</li>
            <li>o acesso aos seus dados;</li>
            <li>a correção de dados incompletos, inexatos ou desatualizados;</li>
            <li>
              a anonimização, o bloqueio ou a eliminação de dados desnecessários, excessivos ou tratados em
              desconformidade com a LGPD;
            </li>
            <li>
              a portabilidade dos dados a outro fornecedor de serviço, observados os segredos comercial e industrial;
            </li>
            <li>a eliminação dos dados tratados com base no seu consentimento, salvo as hipóteses do art. 16;</li>
            <li>a informação sobre as entidades públicas e privadas com as quais compartilhamos seus dados;</li>
            <li>
              a informação sobre a possibilidade de não fornecer consentimento e sobre as consequências da negativa;
            </li>
            <li>a revogação do consentimento.</li>
          </ol>
          <p>
            Você também pode se opor a um tratamento feito com base em outra hipótese legal, se houver descumprimento da
            LGPD, e apresentar reclamação à ANPD (www.gov.br/anpd). Pedimos que fale conosco antes, para resolvermos a
            questão o mais rápido possível.
          </p>
        </>
      ),
    },
    {
      id: 'como-exercer',
      title: 'Como exercer seus direitos',
      body: (
        <>
          <p>
            Você pode consultar e corrigir nome, empresa e número de WhatsApp a qualquer momento na área “Minha conta”
            do painel. Na mesma área, a seção <strong>“Meus dados”</strong> atende você na hora, sem pedido: “Baixar
            meus dados” entrega um arquivo JSON com tudo o que guardamos sobre você (cadastro, assinaturas, pagamentos,
            avisos enviados, registros de auditoria, verificações do WhatsApp e sessões de acesso — nunca senhas ou
            códigos), e “Excluir minha conta”, com a confirmação da senha, elimina os seus dados pessoais como descrito
            na seção “Por quanto tempo guardamos os dados”. A exclusão só é possível quando não há assinatura em
            andamento nem fatura em aberto: cancele a assinatura e aguarde o fim do período pago antes. Para os demais
            pedidos, fale conosco {contact}.
          </p>
          <p>
            Para proteger você, podemos pedir a confirmação da sua identidade antes de atender ao pedido. Respondemos de
            forma simplificada imediatamente ou, quando você pedir uma declaração completa, em até 15 (quinze) dias
            (art. 19 da LGPD). O atendimento é gratuito. Se não pudermos atender algum pedido — por exemplo, por
            obrigação legal de guardar certos dados — explicaremos o motivo.
          </p>
        </>
      ),
    },
    {
      id: 'encarregado',
      title: 'Encarregado de Proteção de Dados (DPO)',
      body: (
        <p>
          O Encarregado pelo tratamento de dados pessoais da {company} recebe reclamações e comunicações dos titulares e
          da ANPD. Para falar com ele, entre em contato {contact}.
        </p>
      ),
    },
    {
      id: 'cookies',
      title: 'Cookies',
      body: (
        <>
          <p>
            Usamos um único cookie, estritamente necessário: o <strong>cookie de sessão</strong>, criado quando você
            entra na sua conta, que mantém você conectado com segurança. Ele não pode ser lido por scripts, é apagado
            quando você sai da conta e expira após um período sem uso.
          </p>
          <p>
            Não usamos cookies de publicidade, de rastreamento ou de análise de terceiros. Por ser indispensável ao
            login, o cookie de sessão não depende de consentimento; se você bloqueá-lo no navegador, não conseguirá
            acessar o painel.
          </p>
        </>
      ),
    },
    {
      id: 'idade-minima',
      title: 'Idade mínima',
      body: (
        <p>
          Nossos serviços são destinados a pessoas com 18 (dezoito) anos ou mais. Não coletamos intencionalmente dados
          de menores de 18 anos; se soubermos que isso ocorreu, eliminaremos os dados.
        </p>
      ),
    },
    {
      id: 'alteracoes',
      title: 'Alterações desta Política',
      body: (
        <p>
          Podemos atualizar esta Política para refletir mudanças no serviço ou na legislação. A data da última
          atualização fica sempre no início do documento. Quando a mudança for relevante, avisaremos por e-mail ou por
          um aviso no site antes de ela entrar em vigor.
        </p>
      ),
    },
  ]
  return { intro, sections }
}
