import { describe, expect, it } from 'vitest';
import { agentSummary, deliveryErrorText, disabledText, errorMeaning } from '../../panel/src/ui/labels';

describe('agentSummary', () => {
  it.each([
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
      'Chrome 156 · Linux',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
      'Edge 120 · Windows',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0',
      'Firefox 121 · macOS',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
      'Safari 17 · iOS',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36',
      'Chrome 119 · Android',
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
      'Chrome 156 · Linux',
    ],
    ['curl/8.5.0', 'curl/8.5.0'],
    ['Mozilla/5.0 (compatible; SomeBot/2.1)', 'Mozilla/5.0 (compatible; SomeBot/2.1)'],
    ['node', 'node'],
  ])('%s → %s', (ua, summary) => {
    expect(agentSummary(ua)).toBe(summary);
  });
});

describe('disabledText', () => {
  it('says who or what disabled the webhook, in one sentence', () => {
    expect(disabledText('Disabled by the merchant')).toBe('Webhook desativado por você.');
    expect(
      disabledText(
        'Disabled automatically: the last 50 deliveries failed over at least 72 h (last error: HTTP 500)',
      ),
    ).toBe(
      'Webhook desativado automaticamente: as últimas 50 entregas falharam durante pelo menos 72 h (último erro: HTTP 500).',
    );
    expect(disabledText(null)).toBe('Webhook desativado.');
    expect(
      disabledText(
        'Disabled automatically: the last 50 deliveries failed over at least 72 h (last error: ECONNREFUSED: connect ECONNREFUSED 10.0.0.1:443)',
      ),
    ).toBe(
      'Webhook desativado automaticamente: as últimas 50 entregas falharam durante pelo menos 72 h (último erro: Conexão recusada pelo receptor).',
    );
    expect(disabledText('Disabled by an operator')).toBe('Webhook desativado: Disabled by an operator');
  });
});

describe('deliveryErrorText', () => {
  it.each([
    ['ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:3999', 'Conexão recusada pelo receptor'],
    ['ENOTFOUND: getaddrinfo ENOTFOUND hooks.example', 'Endereço do receptor não encontrado (DNS)'],
    ['no response within 10000 ms', 'O receptor não respondeu a tempo'],
    ['HTTP 500', 'HTTP 500'],
    ['HTTP 302 (redirects are not followed)', 'HTTP 302 (redirecionamentos não são seguidos)'],
  ])('%s → %s', (error, text) => {
    expect(deliveryErrorText(error)).toBe(text);
  });
});

describe('errorMeaning', () => {
  it('an anticipation refused says how much can be anticipated, and why not all that is scheduled', () => {
    expect(
      errorMeaning(
        'INSUFFICIENT_BALANCE',
        'Not enough card receivables to anticipate: at most 18336 cents can be anticipated now of the 26644 cents scheduled (installments of a sale refunded, being refunded or disputed cannot be); see GET /api/receivables',
      ).replace(/\u00a0/g, ' '), // money's no-break space
    ).toBe(
      'Só R$ 183,36 podem ser antecipados agora dos R$ 266,44 a receber: parcelas de vendas estornadas, em estorno ou contestadas não entram.',
    );
    expect(
      errorMeaning(
        'INSUFFICIENT_BALANCE',
        'Not enough card receivables to anticipate: at most 0 cents can be anticipated now; see GET /api/receivables',
      ),
    ).toBe('Nenhum recebível pode ser antecipado agora.');
  });
  it('says how long to wait when the server does', () => {
    expect(errorMeaning('RATE_LIMITED', 'Too many requests', 30)).toBe(
      'Muitas tentativas. Tente de novo em 30 segundos.',
    );
    // an hour's limit (invitations: 20 an hour) in minutes, not thousands of seconds
    expect(errorMeaning('RATE_LIMITED', 'Too many requests', 3264)).toBe(
      'Muitas tentativas. Tente de novo em 55 minutos.',
    );
    expect(errorMeaning('RATE_LIMITED', 'Too many requests', 119)).toBe(
      'Muitas tentativas. Tente de novo em 119 segundos.',
    );
    expect(errorMeaning('RATE_LIMITED', 'Too many requests', 7201)).toBe(
      'Muitas tentativas. Tente de novo em 3 horas.',
    );
    expect(errorMeaning('RATE_LIMITED', 'Too many requests')).toBe(
      'Muitas tentativas. Aguarde um pouco e tente de novo.',
    );
  });

  it("names a risk rule's condition the server refused (the console's form)", () => {
    expect(errorMeaning('VALIDATION_ERROR', 'when.ipIn: "203.0.113.999" is not valid')).toBe(
      'Dados inválidos: confira os IPs (endereços ou faixas, como 203.0.113.0/24).',
    );
    expect(
      errorMeaning(
        'VALIDATION_ERROR',
        'when must have at least one condition: a rule matching every sale is not a rule',
      ),
    ).toBe('Dados inválidos: confira as condições: uma regra precisa de pelo menos uma.');
    expect(errorMeaning('VALIDATION_ERROR', 'when.binIn has more than 10000 entries')).toBe(
      'Dados inválidos: confira os BINs (6 dígitos).',
    );
    // the server's words (src/risk/rules.ts): what to mark, not "Dados inválidos."
    expect(
      errorMeaning(
        'VALIDATION_ERROR',
        'a review holds a card authorization: when.methods names no card method',
      ),
    ).toBe(
      'Uma regra de análise segura uma autorização de cartão: marque ao menos uma forma de cartão (crédito ou débito).',
    );
    expect(errorMeaning('CONFLICT', 'a fee plan named "Padrão 2026" already exists')).toBe(
      'Já existe um plano de tarifas chamado "Padrão 2026": escolha outro nome.',
    );
  });

  it('says a refusal in the words of what was refused (a fee plan, a stale decision, an operator invited twice)', () => {
    expect(
      errorMeaning(
        'VALIDATION_ERROR',
        'pixPercent must be a percentage from 0 to 100 as a decimal string ("3.99")',
      ),
    ).toBe('Dados inválidos: confira o PIX (%).');
    expect(errorMeaning('VALIDATION_ERROR', 'creditPercent.1 must be a percentage from 0 to 100')).toBe(
      'Dados inválidos: confira as taxas de crédito.',
    );
    expect(errorMeaning('INVALID_STATUS', 'Withdrawal 3 is CANCELLED, not AWAITING_REVIEW')).toBe(
      'Isto já mudou de situação e não pode mais ser feito. Atualize a página para ver como está agora.',
    );
    expect(
      errorMeaning(
        'INVALID_STATUS',
        'a PIX sale in status PAGO cannot be cancelled (only a PENDENTE PIX, BOLETO or scheduled PIX_AUTOMATICO sale)',
      ),
    ).toBe('Esta venda não pode ser cancelada: só uma cobrança pendente (Pix ou boleto) pode.');
    expect(
      errorMeaning(
        'INSUFFICIENT_BALANCE',
        "The platform's available balance lacks 3010 cents for this refund: it needs 15075 cents and has 12065",
      ),
    ).toBe(
      'Sua conta não tem saldo disponível para este estorno: faltam R$\u00a030,10 (o estorno tira R$\u00a0150,75 do disponível, que tem R$\u00a0120,65). Estorne um valor menor ou aguarde novas vendas.',
    );
    expect(
      errorMeaning(
        'INSUFFICIENT_BALANCE',
        'Recipient 0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41 (Loja da Ana) lacks 500 cents of available balance for this refund: it needs 2000 cents and has 1500',
      ),
    ).toMatch(/^O recebedor Loja da Ana não tem saldo disponível para este estorno: faltam R\$\u00a05,00/);
    expect(errorMeaning('INSUFFICIENT_BALANCE', 'Insufficient balance')).toBe('Saldo insuficiente.');
    expect(errorMeaning('EMAIL_TAKEN', 'ana@gateway.example is already an operator')).toBe(
      'Este e-mail já é de um operador (ou de um convite em aberto).',
    );
  });

  it('names the limit the server gives, not a fixed one (a refund of what is left, a cashout)', () => {
    expect(errorMeaning('MAXIMUM_VALUE', 'At most 20000 cents of this sale are left to refund')).toBe(
      'Valor acima do máximo de R$\u00a0200,00.',
    );
    expect(errorMeaning('MINIMUM_VALUE', 'The minimum cashout amount is 100.00')).toBe(
      'Valor abaixo do mínimo de R$\u00a0100,00.',
    );
    expect(errorMeaning('MAXIMUM_VALUE', 'too much')).toBe('Valor acima do máximo de R$ 100.000,00.');
  });

  it("names a link's title the server refused", () => {
    expect(
      errorMeaning('VALIDATION_ERROR', 'title must be plain text: no link, web address or domain name'),
    ).toBe('Dados inválidos: confira o título.');
  });
});
