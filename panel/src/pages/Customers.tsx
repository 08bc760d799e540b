import { useEffect, useState } from 'preact/hooks';
import { api, type Customer } from '../api';
import { date } from '../ui/format';
import { ErrorText, Table } from '../ui/kit';
import { brandName } from './CardInputs';

/** Clientes: the customers made by the API, with the cards saved on file for them (never more than the last four). */
export function Customers() {
  const [rows, setRows] = useState<Customer[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = (more?: string) =>
    api
      .customers({ cursor: more })
      .then((p) => {
        setRows((before) => (more ? [...(before ?? []), ...p.data] : p.data));
        setCursor(p.nextCursor);
      })
      .catch(setError);
  useEffect(() => {
    void load();
  }, []);
  return (
    <>
      <h1>Clientes</h1>
      <p class="muted">
        Os clientes da conta (cadastrados aqui em Assinaturas ou pela API) e os cartões guardados para eles na
        adquirente: a conta guarda só a bandeira, o final e a validade.
      </p>
      <ErrorText error={error} />
      <Table
        label="Clientes"
        head={['Nome', 'E-mail', 'CPF/CNPJ', 'Cartões', 'Desde']}
        empty={rows?.length === 0 && 'Nenhum cliente.'}
      >
        {(rows ?? []).map((c) => (
          <tr key={c.id}>
            <td class="text">{c.name}</td>
            <td class="text">{c.email}</td>
            <td class="text">{c.document}</td>
            <td class="text">
              {c.cards.length === 0
                ? '—'
                : c.cards
                    .map(
                      (k) =>
                        `${brandName(k.brand)} final ${k.lastFour} (${String(k.expMonth).padStart(2, '0')}/${k.expYear})`,
                    )
                    .join(', ')}
            </td>
            <td class="text">{date(c.createdAt)}</td>
          </tr>
        ))}
      </Table>
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Carregar mais
        </button>
      )}
    </>
  );
}
