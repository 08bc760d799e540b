import { useState } from 'preact/hooks';
import { ApiError, api, type User } from '../api';
import { ErrorText } from '../ui/kit';

export function Login({ onLogin, notice }: { onLogin: (u: User) => void; notice: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
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
            onLogin(await api.login(email, password, needsCode ? code : undefined));
          } catch (err) {
            if (err instanceof ApiError && err.code === 'TOTP_REQUIRED') {
              setNeedsCode(true);
              setError(null);
              return;
            }
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Painel do lojista</h1>
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
        {needsCode && (
          <>
            <label for="totp">Código de verificação</label>
            <input
              id="totp"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              required
              aria-describedby="totp-help"
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
            <p id="totp-help" class="muted">
              Digite os 6 dígitos do seu aplicativo autenticador.
            </p>
          </>
        )}
        <ErrorText error={error} />
        <button type="submit" disabled={busy}>
          Entrar
        </button>
      </form>
    </main>
  );
}
