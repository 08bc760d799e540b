import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { type AccountProfile, api } from '../api';
import { ACCOUNT_STATUS, documentText } from '../labels';

/** Contas: search by name, CPF/CNPJ or e-mail; filter by status; newest first, page by page. */
export function Accounts() {
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [rows, setRows] = useState<AccountProfile[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const { error, attempt } = useAttempt();
  const load = (cursor?: string) =>
    attempt(async () => {
      const page = await api.accounts({ q, status, ...(cursor ? { cursor } : {}) });
      setRows((before) => (cursor ? [...(before ?? []), ...page.data] : page.data));
      setNext(page.nextCursor);
    });
  useEffect(() => {
    void load();
  }, []);
  return (
    <section>
      <h1>Contas</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <div>
          <label for="q">Nome, CPF/CNPJ ou e-mail</label>
          <input id="q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        </div>
        <div>
          <label for="status">Situação</label>
          <select id="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <Options labels={ACCOUNT_STATUS} all="Todas" />
          </select>
        </div>
        <button type="submit">Buscar</button>
      </form>
      <ErrorText error={error} />
      {rows && (
        <Table
          label="Contas"
          head={['Conta', 'Nome', 'CPF/CNPJ', 'E-mail', 'Situação', 'Criada em']}
          empty={rows.length === 0 && 'Nenhuma conta encontrada.'}
        >
          {rows.map((a) => (
            <tr key={a.id}>
              <td>
                <a href={`#/contas/${a.id}`}>#{a.id}</a>
              </td>
              <td>{a.name}</td>
              <td>{documentText(a.document)}</td>
              <td>{a.email}</td>
              <td>
                <span class={`badge status-${a.status}`}>{label(ACCOUNT_STATUS, a.status)}</span>
                {a.payoutHold && <span class="badge status-held"> Saques retidos</span>}
              </td>
              <td>{date(a.createdAt)}</td>
            </tr>
          ))}
        </Table>
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => load(next)}>
          Mais contas
        </button>
      )}
    </section>
  );
}
