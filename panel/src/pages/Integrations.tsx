import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type Credential } from '../api';
import { date } from '../ui/format';
import { Card, ErrorText, SecretOnce, Table } from '../ui/kit';

export function Integrations() {
  return (
    <>
      <h1>Integrações</h1>
      <Credentials />
      <AllowedIps />
      <p class="muted">
        Referência da API: <a href="/docs/">documentação</a>.
      </p>
    </>
  );
}

function Credentials() {
  const [list, setList] = useState<Credential[]>([]);
  const [issued, setIssued] = useState<{ publicKey: string; privateKey: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const refresh = () => api.credentials().then(setList).catch(setError);
  useEffect(() => {
    void refresh();
  }, []);
  return (
    <Card title="Credenciais de API">
      <button
        type="button"
        onClick={async () => {
          try {
            const c = await api.createCredential();
            setIssued(c);
            void refresh();
          } catch (err) {
            setError(err);
          }
        }}
      >
        Gerar credencial
      </button>
      {issued && (
        <>
          <p>
            Chave pública: <code>{issued.publicKey}</code>
          </p>
          <SecretOnce label="Chave privada" value={issued.privateKey} />
        </>
      )}
      <ErrorText error={error} />
      <Table label="Credenciais" head={['Chave pública', 'Criada em', 'Último uso', '']}>
        {list.map((c) => (
          <tr key={c.id}>
            <td>
              <code>{c.publicKey}</code>
            </td>
            <td>{date(c.createdAt)}</td>
            <td>{date(c.lastUsedAt)}</td>
            <td>
              <button
                type="button"
                class="danger"
                aria-label={`Revogar a credencial ${c.publicKey}`}
                onClick={async () => {
                  if (
                    !window.confirm(
                      'Revogar esta credencial? As integrações que a usam deixarão de funcionar.',
                    )
                  )
                    return;
                  try {
                    await api.revokeCredential(c.id);
                    if (issued?.publicKey === c.publicKey) setIssued(null);
                    void refresh();
                  } catch (err) {
                    setError(err);
                  }
                }}
              >
                Revogar
              </button>
            </td>
          </tr>
        ))}
      </Table>
    </Card>
  );
}

function AllowedIps() {
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    api
      .allowedIps()
      .then((r) => setText(r.ips.join('\n')))
      .catch(setError);
  }, []);
  const fieldError = error instanceof ApiError ? error.message : null;
  return (
    <Card title="IPs permitidos">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setSaved(false);
          try {
            const ips = text.split(/[\s,]+/).filter(Boolean);
            const r = await api.saveAllowedIps(ips);
            setText(r.ips.join('\n'));
            setError(null);
            setSaved(true);
          } catch (err) {
            setError(err);
          }
        }}
      >
        <label for="ips">Endereços IP (um por linha)</label>
        <textarea
          id="ips"
          rows={4}
          value={text}
          aria-invalid={fieldError ? 'true' : 'false'}
          aria-describedby="ips-help ips-error"
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <p id="ips-help" class="muted">
          Com a lista vazia, as chaves de API funcionam de qualquer IP. Com IPs na lista, só desses endereços.
        </p>
        <p id="ips-error" class="error" role="alert">
          {fieldError ?? (error ? 'Não foi possível salvar.' : '')}
        </p>
        {saved && (
          <p class="ok" role="status">
            Lista salva.
          </p>
        )}
        <button type="submit">Salvar IPs</button>
      </form>
    </Card>
  );
}
