import { useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { ApiError } from '../../ui/api-error';
import { CopyButton, ErrorText } from '../../ui/kit';
import { api, type Enrolment, type Operator } from '../api';

export function Login({ onLogin, notice }: { onLogin: (o: Operator) => void; notice: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="login">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            onLogin(await api.login(email, password, code));
          } catch (err) {
            setError(err);
            if (err instanceof ApiError && err.code === 'INVALID_CREDENTIALS') setCode('');
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Console de operação</h1>
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <label for="email">E-mail</label>
        <input
          id="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="password">Senha</label>
        <input
          id="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <label for="totp">Código do autenticador</label>
        <input
          id="totp"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          required
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
        <ErrorText error={error} />
        {error instanceof ApiError && error.code === 'INVALID_CREDENTIALS' && (
          <p class="muted">
            Confira o e-mail e a senha. Se o código já foi usado numa entrada, espere o próximo que o
            aplicativo mostrar (muda a cada 30 segundos).
          </p>
        )}
        <button type="submit" disabled={busy}>
          Entrar
        </button>
      </form>
    </main>
  );
}

/** An invitation: choose the password, add the secret to an authenticator app, prove it with a code. */
export function AcceptInvitation({ token, onDone }: { token: string; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const [enrolment, setEnrolment] = useState<(Enrolment & { qr: string }) | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      {enrolment === null ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              const answer = await api.acceptInvitation(token, password);
              // drawn here, in the browser: the secret never leaves for a QR service
              const qr = await QRCode.toDataURL(answer.otpauthUrl, { margin: 1, width: 220 });
              setEnrolment({ ...answer, qr });
            });
          }}
        >
          <h1>Convite para o console</h1>
          <p>Escolha sua senha. Em seguida, cadastre o aplicativo autenticador: ele é obrigatório.</p>
          <label for="new-password">Senha (mínimo de 8 caracteres)</label>
          <input
            id="new-password"
            type="password"
            autocomplete="new-password"
            minLength={8}
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <ErrorText error={error} />
          <button type="submit" disabled={busy}>
            Continuar
          </button>
        </form>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              await api.enableTotp(token, code);
              onDone();
            });
          }}
        >
          <h1>Autenticador</h1>
          <p>
            Leia o QR code com o aplicativo autenticador (ou digite a chave abaixo; ela aparece só agora) e
            informe o código de 6 dígitos que ele mostrar.
          </p>
          <img
            class="totp-qr"
            src={enrolment.qr}
            width={220}
            height={220}
            alt="QR code para cadastrar o console no aplicativo autenticador"
          />
          <p>
            <code class="secret">{enrolment.totpSecret}</code>{' '}
            <CopyButton text={enrolment.totpSecret} label="Copiar chave" />
          </p>
          <p class="muted">
            Ou abra este endereço no celular: <code>{enrolment.otpauthUrl}</code>
          </p>
          <label for="enrol-code">Código do autenticador</label>
          <input
            id="enrol-code"
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{6}"
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <ErrorText error={error} />
          <button type="submit" disabled={busy}>
            Concluir cadastro
          </button>
        </form>
      )}
    </main>
  );
}
