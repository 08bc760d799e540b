import { useEffect, useState } from 'preact/hooks';
import { api, can, type Recipient, type SplitRuleInput } from '../api';
import { centsOf } from '../ui/format';

/** One share of a charge's split as typed: a recipient, its share in reais or percent, and who answers for it. */
export interface ShareTyped {
  recipientId: string;
  kind: 'amount' | 'percent';
  value: string;
  liable: boolean;
}

/** The split as typed: the shares, and who pays the fees ('' the merchant itself, else a share's index). */
export interface SplitTyped {
  shares: ShareTyped[];
  feePayer: string;
}

export const NO_SPLIT: SplitTyped = { shares: [], feePayer: '' };

/** The rules to send, or what is wrong in Portuguese; the server checks the sums against the amount. */
export function splitRules(typed: SplitTyped): SplitRuleInput[] | string {
  const rules: SplitRuleInput[] = [];
  for (const [i, s] of typed.shares.entries()) {
    if (!s.recipientId) return 'Escolha o recebedor de cada divisão.';
    const rule: SplitRuleInput = { recipientId: s.recipientId };
    if (s.kind === 'amount') {
      const cents = centsOf(s.value);
      if (cents === null || cents < 1) return 'Digite a parte de cada recebedor em reais, como 10,00.';
      rule.amountCents = cents;
    } else {
      const percent = Number(s.value.trim().replace(',', '.'));
      if (!/^\d{1,3}([.,]\d{1,2})?$/.test(s.value.trim()) || percent <= 0 || percent > 100) {
        return 'Digite a porcentagem de cada recebedor entre 0,01 e 100, com até duas casas.';
      }
      rule.percent = percent;
    }
    if (typed.feePayer === String(i)) rule.chargeFees = true;
    if (s.liable) rule.liable = true;
    rules.push(rule);
  }
  if (new Set(rules.map((r) => r.recipientId)).size < rules.length) {
    return 'Cada recebedor entra uma vez só na divisão.';
  }
  return rules;
}

/**
 * "Dividir com recebedores": the shares of a sale that a marketplace passes on to its recipients (Recebedores);
 * the merchant keeps the rest. Shown only to who sees the recipients, and only when there are active ones.
 */
export function SplitFields({
  value,
  onChange,
}: {
  value: SplitTyped;
  onChange: (next: SplitTyped) => void;
}) {
  const [recipients, setRecipients] = useState<Recipient[] | null>(null);
  useEffect(() => {
    if (!can('money.view')) return;
    // every page of them: a marketplace has more recipients than one page holds
    api.allRecipients().then(
      (all) => setRecipients(all.filter((r) => r.active)),
      () => setRecipients([]),
    );
  }, []);
  if (!recipients || recipients.length === 0) return null;
  const set = (i: number, change: Partial<ShareTyped>) =>
    onChange({ ...value, shares: value.shares.map((s, j) => (j === i ? { ...s, ...change } : s)) });
  const remove = (i: number) => {
    const payer = Number(value.feePayer);
    const feePayer = value.feePayer === '' || payer === i ? '' : String(payer > i ? payer - 1 : payer);
    onChange({ shares: value.shares.filter((_, j) => j !== i), feePayer });
  };
  const nameOf = (id: string) => recipients.find((r) => r.id === id)?.name ?? 'recebedor';
  return (
    <fieldset class="split">
      <legend>Dividir com recebedores (opcional)</legend>
      {value.shares.map((s, i) => (
        <div key={i} class="split-share">
          <div class="wide">
            <label for={`split-r-${i}`}>Recebedor</label>
            <select
              id={`split-r-${i}`}
              value={s.recipientId}
              onInput={(e) => set(i, { recipientId: e.currentTarget.value })}
            >
              <option value="">Escolha…</option>
              {recipients.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for={`split-k-${i}`}>Parte em</label>
            <select
              id={`split-k-${i}`}
              value={s.kind}
              onInput={(e) => set(i, { kind: e.currentTarget.value as ShareTyped['kind'] })}
            >
              <option value="amount">R$</option>
              <option value="percent">%</option>
            </select>
          </div>
          <div>
            <label for={`split-v-${i}`}>{s.kind === 'amount' ? 'Parte (R$)' : 'Parte (%)'}</label>
            <input
              id={`split-v-${i}`}
              inputMode="decimal"
              value={s.value}
              onInput={(e) => set(i, { value: e.currentTarget.value })}
            />
          </div>
          <label class="choice">
            <input type="checkbox" checked={s.liable} onChange={() => set(i, { liable: !s.liable })} />{' '}
            Responde por estornos e disputas
          </label>
          <button
            type="button"
            class="link"
            aria-label={`Tirar ${s.recipientId ? nameOf(s.recipientId) : 'este recebedor'} da divisão`}
            onClick={() => remove(i)}
          >
            Tirar
          </button>
        </div>
      ))}
      {value.shares.length < 10 && (
        <button
          type="button"
          class="secondary"
          onClick={() =>
            onChange({
              ...value,
              shares: [...value.shares, { recipientId: '', kind: 'percent', value: '', liable: false }],
            })
          }
        >
          Adicionar recebedor
        </button>
      )}
      {value.shares.length > 0 && (
        <div>
          <label for="split-fees">Quem paga as taxas</label>
          <select
            id="split-fees"
            value={value.feePayer}
            onInput={(e) => onChange({ ...value, feePayer: e.currentTarget.value })}
          >
            <option value="">Você (fica com o restante)</option>
            {value.shares.map((s, i) => (
              <option key={i} value={String(i)}>
                {s.recipientId ? nameOf(s.recipientId) : `Recebedor ${i + 1}`}
              </option>
            ))}
          </select>
        </div>
      )}
      <p class="muted">
        Você fica com o que sobrar. Sem ninguém marcado, estornos e disputas saem da sua parte.
      </p>
    </fieldset>
  );
}
