import { useState } from 'preact/hooks';
import { api, type User } from '../api';
import { ErrorText } from '../ui/kit';

export function Login({ onLogin, notice }: { onLogin: (u: User) => void; notice: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
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
            onLogin(await api.login(email, password));
          } catch (err) {
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
        <ErrorText error={error} />
        <button type="submit" disabled={busy}>
          Entrar
        </button>
      </form>
    </main>
  );
}
