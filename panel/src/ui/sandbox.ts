import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';

/** Whether this gateway's sandbox is on (null while asking): the pages that offer test charges say so only then. */
export function useSandbox(): boolean | null {
  const [on, setOn] = useState<boolean | null>(null);
  useEffect(() => {
    api.sandbox().then(
      (s) => setOn(s.enabled),
      () => setOn(false),
    );
  }, []);
  return on;
}

/** What works while the account is in review, with the sandbox on (docs/decisions.md, "What the panel offers an account in review"). */
export const TEST_MODE_IN_REVIEW =
  'Enquanto isso, o modo de teste funciona: em Vendas › Nova cobrança, crie cobranças de teste (Pix ou boleto) e simule o pagamento delas na página da venda, sem dinheiro de verdade.';
