import { STATEMENT_REFERENCES } from '../../../src/ledger/statement-words';
import type { ErrorCode } from '../../../src/platform/errors/app-error';
import type { EventName } from '../../../src/webhooks/events';
import { fieldOfMessage } from './field-errors';
import { money, moneyText } from './format';

/**
 * Every status and code the panel shows, in Brazilian Portuguese, in one place: pages show `label(X, v)`,
 * never the API's raw value (an unknown value falls back to itself rather than to nothing).
 */
export const SALE_STATUS: Record<string, string> = {
  PENDENTE: 'Pendente',
  EM_PROCESSAMENTO: 'Em processamento',
  PAGO: 'Pago',
  CANCELADO: 'Cancelado',
  RECUSADO: 'Recusado',
  ESTORNADO: 'Estornado',
  FALHA: 'Falha',
  CHARGEBACK: 'Chargeback',
  MED: 'MED (devolução PIX)',
};

export const WITHDRAWAL_STATUS: Record<string, string> = {
  PENDING: 'Pendente',
  AWAITING_REVIEW: 'Em análise',
  PROCESSING: 'Em processamento',
  COMPLETED: 'Concluído',
  FAILED: 'Recusado',
  CANCELLED: 'Cancelado',
};

export const DISPUTE_STATUS: Record<string, string> = {
  needs_response: 'Aguardando resposta',
  under_review: 'Em análise',
  won: 'Ganha',
  lost: 'Perdida',
  accepted: 'Aceita',
};

export const DISPUTE_KIND: Record<string, string> = {
  chargeback: 'Chargeback (cartão)',
  med: 'MED (Pix)',
};

export const ROLES: Record<string, string> = {
  owner: 'Proprietário',
  admin: 'Administrador',
  finance: 'Financeiro',
  developer: 'Desenvolvedor',
  viewer: 'Somente leitura',
};

/** What each role may do, as the Equipe page explains it. */
export const ROLE_HELP: Record<string, string> = {
  owner: 'tudo, inclusive gerenciar proprietários',
  admin: 'tudo, menos gerenciar proprietários',
  finance: 'ver valores, criar e aprovar saques, ver o registro de atividades',
  developer: 'ver valores, chaves de API, IPs permitidos e webhooks',
  viewer: 'apenas ver valores',
};

export const APPROVAL_STATUS: Record<string, string> = {
  awaiting: 'Aguardando aprovação',
  approved: 'Aprovado',
  declined: 'Recusado',
  expired: 'Expirado (sem decisão em 72 h)',
};

/** A webhook delivery: waiting for (another) attempt, accepted by the receiver, or out of attempts. */
export const DELIVERY_STATUS: Record<string, string> = {
  PENDING: 'Pendente',
  DELIVERED: 'Entregue',
  FAILED: 'Falhou',
  SKIPPED: 'Não enviada (webhook desativado)',
};

export const METHODS: Record<string, string> = {
  PIX: 'PIX',
  CREDIT_CARD: 'Cartão de crédito',
  DEBIT_CARD: 'Cartão de débito',
  BOLETO: 'Boleto',
  TRANSFER: 'Transferência',
  PIX_AUTOMATICO: 'PIX Automático',
};

/** How a recipient is paid out (split payments). */
export const TRANSFER_INTERVALS: Record<string, string> = {
  manual: 'Manual',
  daily: 'Diário (06:00)',
  weekly: 'Semanal (segunda, 06:00)',
};

export const PIX_KEY_TYPES: Record<string, string> = {
  CPF: 'CPF',
  CNPJ: 'CNPJ',
  EMAIL: 'E-mail',
  PHONE: 'Telefone',
  RANDOM: 'Chave aleatória',
};

export const SUBSCRIPTION_STATUS: Record<string, string> = {
  incomplete: 'Aguardando o primeiro pagamento',
  incomplete_expired: 'Primeiro pagamento não feito',
  trialing: 'Em teste',
  active: 'Ativa',
  past_due: 'Pagamento atrasado',
  unpaid: 'Sem pagamento',
  canceled: 'Cancelada',
};

export const PLAN_INTERVAL: Record<string, [string, string]> = {
  week: ['semana', 'semanas'],
  month: ['mês', 'meses'],
  year: ['ano', 'anos'],
};

/** What each webhook event tells, beside its name (the name is what the receiver gets). */
export const EVENTS: Record<EventName, string> = {
  'sale.pending': 'Venda criada, aguardando pagamento',
  'sale.paid': 'Venda paga',
  'sale.refused': 'Venda recusada',
  'sale.canceled': 'Venda cancelada',
  'sale.refunded': 'Venda estornada',
  'sale.chargeback': 'Chargeback ou MED',
  'withdrawal.pending': 'Saque em processamento',
  'withdrawal.completed': 'Saque concluído',
  'withdrawal.rejected': 'Saque recusado',
  'withdrawal.canceled': 'Saque cancelado',
  'cart.abandoned': 'Carrinho abandonado',
  'cart.recovered': 'Carrinho recuperado',
  'dispute.opened': 'Contestação aberta',
  'dispute.won': 'Contestação ganha',
  'dispute.lost': 'Contestação perdida ou aceita',
  'anticipation.paid': 'Antecipação paga',
  'anticipation.rejected': 'Antecipação recusada',
  'subscription.created': 'Assinatura criada',
  'subscription.activated': 'Assinatura ativada (primeiro período pago)',
  'subscription.renewed': 'Assinatura renovada',
  'subscription.past_due': 'Assinatura com pagamento atrasado',
  'subscription.unpaid': 'Assinatura sem pagamento após as tentativas',
  'subscription.incomplete_expired': 'Assinatura encerrada sem o primeiro pagamento',
  'subscription.canceled': 'Assinatura cancelada',
  'invoice.paid': 'Cobrança de assinatura paga',
  'invoice.failed': 'Cobrança de assinatura não paga',
};

/** A delivery's event in words: a subscribable event, or the panel's test event. */
export function eventLabel(name: string): string {
  if (name === 'webhook.test') return 'Evento de teste';
  return (EVENTS as Record<string, string>)[name] ?? name;
}

/** What a statement line is about (its journal entry's reference). */
export const REF_TYPES: Record<string, string> = STATEMENT_REFERENCES;

const AUDIT_TARGETS: Record<string, string> = {
  webhook: 'Webhook',
  credential: 'Credencial',
  withdrawal: 'Saque',
  account: 'Conta',
  user: 'Usuário',
  dispute: 'Contestação',
};

/** An audit entry's target (`webhook:3`, `withdrawal:<uuid>`, an allow-list) as the panel names it. */
export function auditTarget(target: string | null): string {
  if (target === null) return '—';
  const setting = /^api_withdrawals:(on|off)$/.exec(target);
  if (setting) return `Saques pela API ${setting[1] === 'on' ? 'ligados' : 'desligados'}`;
  const m = /^([a-z_]+):(.+)$/.exec(target);
  const kind = m && AUDIT_TARGETS[m[1]!];
  if (kind) return `${kind} ${m[2]}`;
  return target.split(',').join(', ');
}

/** What each API error code means, in Portuguese (the server's own messages are English, for integrators). */
export const ERROR_TEXT: Record<ErrorCode | 'TOTP_CODE_REFUSED' | 'PASSWORD_REFUSED', string> = {
  UNAUTHORIZED: 'Credenciais inválidas.',
  TOTP_REQUIRED: 'Informe o código do autenticador.',
  TOTP_CODE_REFUSED: 'Código do autenticador inválido ou já usado. Aguarde o próximo código e tente de novo.',
  PASSWORD_REFUSED: 'Senha incorreta.',
  FORBIDDEN: 'Sem permissão para esta ação.',
  NOT_FOUND: 'Não encontrado.',
  GONE: 'Este link de pagamento ou checkout não aceita mais pagamentos.',
  VALIDATION_ERROR: 'Dados inválidos.',
  CONFLICT: 'Não é possível fazer isso agora.',
  INVALID_STATUS:
    'Isto já mudou de situação e não pode mais ser feito. Atualize a página para ver como está agora.',
  DISPUTE_CLOSED: 'Esta contestação não aceita mais resposta.',
  UNSUPPORTED_FILE_TYPE: 'Envie arquivos PDF, PNG ou JPEG.',
  PAYLOAD_TOO_LARGE: 'Dados grandes demais.',
  RATE_LIMITED: 'Muitas tentativas. Aguarde um pouco e tente de novo.',
  INTERNAL_ERROR: 'Erro no servidor. Tente de novo.',
  SERVICE_UNAVAILABLE: 'Serviço indisponível no momento. Tente de novo.',
  INVALID_IP: 'Endereço IP inválido.',
  IP_NOT_ALLOWED: 'Este endereço IP não está na lista de IPs permitidos.',
  HEADERS_TOO_LARGE: 'Requisição grande demais.',
  REQUEST_TIMEOUT: 'A requisição demorou demais. Tente de novo.',
  PROCESSOR_ERROR: 'O processador de pagamentos falhou. Tente de novo.',
  PROCESSOR_UNAVAILABLE: 'Nenhum processador de pagamentos está disponível para isto.',
  TOO_MANY_IPS: 'A lista tem IPs demais: o máximo é 20.',
  TOO_MANY_KEYS: 'A conta já tem 20 pares de chaves ativos, o máximo: revogue um antes de criar outro.',
  EMAIL_TAKEN: 'Este e-mail já é de um usuário ou convidado desta equipe.',
  LAST_OWNER: 'A conta precisa de um proprietário: torne outra pessoa proprietária antes.',
  NOT_AWAITING_APPROVAL: 'Este saque não está mais aguardando aprovação.',
  INVALID_TOKEN: 'Este link é inválido, já foi usado ou expirou. Peça um novo.',
  INSUFFICIENT_BALANCE: 'Saldo insuficiente.',
  MINIMUM_VALUE: 'Valor abaixo do mínimo de R$ 100,00.',
  MAXIMUM_VALUE: 'Valor acima do máximo de R$ 100.000,00.',
  API_WITHDRAWAL_DISABLED_GLOBALLY: 'Saques estão desativados no momento.',
  TRANSFER_NOT_ALLOWED: 'Transferência não permitida.',
  GENERAL_ERROR: 'Não foi possível concluir a operação.',
  IDEMPOTENCY_KEY_REUSED: 'Esta solicitação já foi usada com outros dados.',
  IDEMPOTENCY_KEY_IN_USE: 'Esta solicitação ainda está em andamento.',
  ACCOUNT_NOT_ACTIVE:
    'A conta está em análise: cobranças e saques são liberados depois da aprovação dos documentos.',
  ACCOUNT_SUSPENDED: 'A conta está suspensa: novas cobranças e saques estão bloqueados. Fale com o suporte.',
  INVALID_CREDENTIALS: 'E-mail, senha ou código inválidos.',
  CARD_PAYMENTS_PAUSED:
    'Os pagamentos com cartão desta conta estão pausados para análise (muitas recusas em uma hora): a equipe de risco do gateway os retoma. Pix e boleto continuam.',
  FEE_PLAN_REQUIRED:
    'A conta não tem plano de tarifas e nenhum plano padrão foi definido: escolha um plano para a conta antes de aprová-la.',
};

/**
 * The field a validation message names first (the server starts them with the field: "pixKey is not a valid
 * CPF", "amount must be …"), as the panel's forms call it.
 */
const FIELDS: [RegExp, string][] = [
  [/^amount\b/, 'o valor'],
  [/^customer\.address\.zipCode\b/, 'o CEP'],
  [/^customer\.address\.state\b/, 'a UF'],
  [/^customer\.address\b/, 'o endereço'],
  [/^customer\.document\b/, 'o CPF/CNPJ'],
  [/^customer\.phone\b/, 'o telefone'],
  [/^document\b/, 'o CPF/CNPJ'],
  [/^phone\b/, 'o telefone'],
  [/^legalName\b/, 'a razão social ou nome completo'],
  [/^address\.zipCode\b/, 'o CEP'],
  [/^address\.state\b/, 'a UF'],
  [/^address\b/, 'o endereço'],
  [/^boleto\.dueDate\b/, 'o vencimento'],
  [/^boleto\.finePercent\b/, 'a multa (uma porcentagem, como 2,00)'],
  [/^boleto\.monthlyInterestPercent\b/, 'os juros ao mês (uma porcentagem, como 1,00)'],
  [/^boleto\.daysAfterDue\b/, 'os dias para pagar em atraso (de 0 a 60)'],
  [/^boleto\.discount\.untilDate\b/, 'a data do desconto (de hoje até o vencimento)'],
  [/^boleto\.discount\b/, 'o desconto (menor que o valor)'],
  [/^pixKeyType\b/, 'o tipo de chave PIX'],
  [/^pixKey\b/, 'a chave PIX'],
  [/^webhookUrl\b/, 'a URL do webhook'],
  [/^(events\b|"\*")/, 'os eventos escolhidos'],
  [/^password\b/, 'a senha'],
  [/^(The code|code\b|totpCode\b)/, 'o código do autenticador'],
  [/^name\b/, 'o nome'],
  [/^title\b/, 'o título'],
  [/^description\b/, 'a descrição'],
  [/^email\b/, 'o e-mail'],
  [/^expiresAt\b/, 'a validade'],
  [/^(graceHours|overlapHours)\b/, 'o prazo de troca'],
  [/^(from|to|since)\b/, 'o período'],
  // a fee plan's prices (the console's Tarifas)
  [/^pixPercent\b/, 'o PIX (%)'],
  [/^pixFixedCents\b/, 'o PIX fixo'],
  [/^boletoFixedCents\b/, 'a tarifa do boleto'],
  [/^creditPercent\b/, 'as taxas de crédito'],
  [/^debitPercent\b/, 'a taxa de débito'],
  [/^anticipationMonthlyPercent\b/, 'a taxa de antecipação'],
  [/^cashoutFixedCents\b/, 'a tarifa de saque'],
  // a risk rule's conditions
  [/^when\.ipIn\b/, 'os IPs (endereços ou faixas, como 203.0.113.0/24)'],
  [/^when\.documentIn\b/, 'os CPFs/CNPJs'],
  [/^when\.emailDomainIn\b/, 'os domínios de e-mail'],
  [/^when\.emailIn\b/, 'os e-mails'],
  [/^when\.binIn\b/, 'os BINs (6 dígitos)'],
  [/^when\.cardFingerprintIn\b/, 'as impressões de cartão'],
  [/^when\.amountCentsAbove\b/, 'o valor acima do qual a regra vale'],
  [/^when\.methods\b/, 'as formas de pagamento'],
  [/^when\b/, 'as condições: uma regra precisa de pelo menos uma'],
];

/** A wait of `seconds` as a person reads it: seconds under two minutes, then minutes, then hours (rounded up). */
export function waitText(seconds: number): string {
  if (seconds < 120) return seconds === 1 ? '1 segundo' : `${seconds} segundos`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 120) return `${minutes} minutos`;
  const hours = Math.ceil(minutes / 60);
  return `${hours} horas`;
}

/** An API error in Portuguese: what its code means, and which field or value it is about when that is known. */
export function errorMeaning(code: string, message: string, retryAfter: number | null = null): string {
  if (code === 'RATE_LIMITED' && retryAfter !== null)
    return `Muitas tentativas. Tente de novo em ${waitText(retryAfter)}.`;
  if (code === 'VALIDATION_ERROR') {
    // a period longer than a report or a list takes ("a report covers at most 366 days", "… at most 366 days apart")
    const longest = /at most (\d+) days/.exec(message)?.[1];
    if (longest) return `Período longo demais: escolha no máximo ${longest} dias.`;
    // a schema's refusal names the field's path ("Invalid body/address/zipCode: …"): read it as "address.zipCode"
    const named = fieldOfMessage(message);
    const subject = named ? `${named.path} ${named.reason}` : message;
    const field = FIELDS.find(([pattern]) => pattern.test(subject))?.[1];
    if (field) return `Dados inválidos: confira ${field}.`;
  }
  if (code === 'MINIMUM_VALUE' || code === 'MAXIMUM_VALUE') {
    // the limit the server names: "At most 20000 cents of this sale are left to refund", "The minimum cashout
    // amount is 100.00"
    const cents = /(\d+) cents/.exec(message)?.[1];
    const reais = /(\d+\.\d{2})\b/.exec(message)?.[1];
    const limit = cents !== undefined ? money(Number(cents)) : reais !== undefined ? moneyText(reais) : null;
    if (limit)
      return code === 'MINIMUM_VALUE'
        ? `Valor abaixo do mínimo de ${limit}.`
        : `Valor acima do máximo de ${limit}.`;
  }
  if (code === 'INSUFFICIENT_BALANCE') {
    // an anticipation's refusal names how much can be anticipated, and what is scheduled when that is more
    const most = /at most (\d+) cents can be anticipated/.exec(message)?.[1];
    if (most !== undefined) {
      const scheduled = /of the (\d+) cents scheduled/.exec(message)?.[1];
      return Number(most) === 0
        ? 'Nenhum recebível pode ser antecipado agora.' +
            (scheduled ? ' Parcelas de vendas estornadas, em estorno ou contestadas não entram.' : '')
        : `Só ${money(Number(most))} podem ser antecipados agora` +
            (scheduled
              ? ` dos ${money(Number(scheduled))} a receber: parcelas de vendas estornadas, em estorno ou contestadas não entram.`
              : '.');
    }
    // a refund's refusal names who lacks how much (the platform, or a recipient of the split)
    const m = /lacks (\d+) cents.* needs (\d+) cents.* has (-?\d+)/.exec(message);
    if (m) {
      const [lacks, needs, has] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const recipient = /^Recipient \S+ \((.*)\) lacks/.exec(message)?.[1];
      const whose = recipient ? `O recebedor ${recipient} não tem` : 'Sua conta não tem';
      return `${whose} saldo disponível para este estorno: faltam ${money(lacks)} (o estorno tira ${money(needs)} do disponível, que tem ${money(Math.max(0, has))}). Estorne um valor menor ou aguarde novas vendas.`;
    }
  }
  if (code === 'INVALID_STATUS' && /cannot be cancelled/.test(message)) {
    return 'Esta venda não pode ser cancelada: só uma cobrança pendente (Pix ou boleto) pode.';
  }
  if (code === 'INVALID_STATUS' && /^The account is closed/.test(message)) {
    return 'Esta conta está encerrada: nada mais muda nela.';
  }
  if (code === 'EMAIL_TAKEN' && /is already an operator$/.test(message)) {
    return 'Este e-mail já é de um operador (ou de um convite em aberto).';
  }
  if (code === 'CONFLICT') {
    const plan = /^a fee plan named "(.*)" already exists$/.exec(message)?.[1];
    if (plan !== undefined) return `Já existe um plano de tarifas chamado "${plan}": escolha outro nome.`;
    if (/is the only active admin/.test(message)) {
      return 'Este é o único administrador ativo: torne outro operador administrador antes.';
    }
    if (/^You cannot (disable your own access|change your own role)/.test(message)) {
      return 'Você não pode mudar o seu próprio acesso: peça a outro administrador.';
    }
    if (/is disabled: invite them again/.test(message)) {
      return 'Este operador está desativado: convide-o de novo para dar um papel.';
    }
  }
  if (code === 'VALIDATION_ERROR' && /when\.methods names no card method$/.test(message)) {
    return /^a review/.test(message)
      ? 'Uma regra de análise segura uma autorização de cartão: marque ao menos uma forma de cartão (crédito ou débito).'
      : 'BINs e impressões de cartão só valem para vendas com cartão: marque ao menos uma forma de cartão.';
  }
  if (code === 'INVALID_IP') {
    const value = /"([^"]*)"/.exec(message)?.[1];
    if (value !== undefined) return `Endereço IP inválido: "${value}".`;
  }
  return ERROR_TEXT[code as keyof typeof ERROR_TEXT] ?? 'Não foi possível concluir a operação.';
}

export function label(labels: Record<string, string>, value: string): string {
  return labels[value] ?? value;
}

/** Who an operator entry names (`command line`, `gateway`: the server's own labels). */
export function operatorLabel(label: string): string {
  if (label === 'command line') return 'linha de comando';
  if (label === 'gateway') return 'sistema (automático)';
  return label;
}

/**
 * "Webhook desativado …" with a webhook's `disabledReason` (English, as the API gives it to integrators) in
 * Portuguese: the two reasons the server writes, with their numbers and the receiver's last error as they were.
 */
export function disabledText(reason: string | null): string {
  if (!reason) return 'Webhook desativado.';
  if (reason === 'Disabled by the merchant') return 'Webhook desativado por você.';
  const auto =
    /^Disabled automatically: the last (\d+) deliveries failed over at least (\d+) h \(last error: (.*)\)$/s.exec(
      reason,
    );
  if (auto) {
    return `Webhook desativado automaticamente: as últimas ${auto[1]} entregas falharam durante pelo menos ${auto[2]} h (último erro: ${deliveryErrorText(auto[3]!)}).`;
  }
  return `Webhook desativado: ${reason}`;
}

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)/, 'Opera'],
  [/\bFirefox\/(\d+)/, 'Firefox'],
  [/(?:\bChrome|\bCriOS|HeadlessChrome)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/**
 * A User-Agent in a few words for the audit log ("Chrome 156 · Linux"; an API client as its first product,
 * "curl/8.5.0"); the whole string stays available beside it.
 */
export function agentSummary(ua: string): string {
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua));
  // an API client names itself first ("curl/8.5.0"); any other browser is left whole (cut short on screen)
  if (!browser) return ua.startsWith('Mozilla/') ? ua : (ua.split(' ')[0] ?? ua);
  const version = browser[0].exec(ua)?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1];
  return `${browser[1]} ${version}${system ? ` · ${system}` : ''}`;
}

const DELIVERY_ERRORS: [RegExp, string][] = [
  [/^HTTP (\d{3}) \(redirects are not followed\)/, 'HTTP $1 (redirecionamentos não são seguidos)'],
  [/^no response within (\d+) ms/, 'O receptor não respondeu a tempo'],
  [/^refused: /, 'Endereço recusado pelo gateway (não público)'],
  [/^ECONNREFUSED\b/, 'Conexão recusada pelo receptor'],
  [/^(ENOTFOUND|EAI_AGAIN)\b/, 'Endereço do receptor não encontrado (DNS)'],
  [/^(ECONNRESET|UND_ERR_SOCKET)\b/, 'Conexão interrompida pelo receptor'],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)\b/, 'Não foi possível conectar ao receptor a tempo'],
  [/^(CERT_|ERR_TLS|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_VERIFY)/, 'Certificado TLS do receptor não aceito'],
];

/**
 * A delivery attempt's error (the gateway's English, written for integrators: "ECONNREFUSED: connect …") in a
 * few Portuguese words; an HTTP status and anything unknown are shown as they are.
 */
export function deliveryErrorText(error: string): string {
  for (const [pattern, text] of DELIVERY_ERRORS) {
    const m = pattern.exec(error);
    if (m) return text.replace(/\$(\d)/g, (_, n: string) => m[Number(n)] ?? '');
  }
  return error;
}
