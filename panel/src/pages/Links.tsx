import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, type User } from '../api';
import { ErrorText } from '../ui/kit';

/** A new password typed twice; the form says when the two differ before anything is sent. */
function PasswordPair({
  submit,
  button,
  busy,
  children,
}: {
  submit: (password: string) => void;
  button: string;
  busy: boolean;
  children: ComponentChildren;
}) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState(false);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (password !== again) {
          setMismatch(true);
          return;
        }
        setMismatch(false);
        submit(password);
      }}
    >
      {children}
      <label for="new-password">Nova senha</label>
      <input
        id="new-password"
        type="password"
        autocomplete="new-password"
        minLength={8}
        required
        aria-describedby="password-help"
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
      />
      <p id="password-help" class="muted">
        Pelo menos 8 caracteres.
      </p>
      <label for="new-password-again">Repita a nova senha</label>
      <input
        id="new-password-again"
        type="password"
        autocomplete="new-password"
        required
        value={again}
        onInput={(e) => setAgain(e.currentTarget.value)}
      />
      {mismatch && (
        <p class="error" role="alert">
          As duas senhas não são iguais.
        </p>
      )}
      <button type="submit" disabled={busy}>
        {button}
      </button>
    </form>
  );
}

/** `#/convite/<token>`: the invited person chooses a password and is signed in. */
export function AcceptInvitation({ token, onSignedIn }: { token: string; onSignedIn: (u: User) => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="login">
      <PasswordPair
        button="Aceitar e entrar"
        busy={busy}
        submit={async (password) => {
          setBusy(true);
          setError(null);
          try {
            const user = await api.acceptInvitation(token, password);
            location.hash = '#/';
            onSignedIn(user);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Aceitar convite</h1>
        <p>Escolha a senha do seu acesso ao painel. Depois você entra com seu e-mail e esta senha.</p>
        <ErrorText error={error} />
      </PasswordPair>
    </main>
  );
}

/** `#/nova-senha/<token>`: a new password from a reset link; then the login page. */
export function ResetPassword({ token, onDone }: { token: string; onDone: (notice: string) => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="login">
      <PasswordPair
        button="Salvar nova senha"
        busy={busy}
        submit={async (password) => {
          setBusy(true);
          setError(null);
          try {
            await api.confirmPasswordReset(token, password);
            location.hash = '#/';
            onDone('Senha alterada. Entre com a nova senha.');
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Nova senha</h1>
        <ErrorText error={error} />
      </PasswordPair>
    </main>
  );
}

/** `#/esqueci-senha`: asks for a reset link; the answer never says whether the e-mail has an account. */
export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
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
            await api.requestPasswordReset(email);
            setSent(true);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Esqueci minha senha</h1>
        {sent ? (
          <p class="notice" role="status">
            Se houver um acesso com este e-mail, enviamos um link para escolher uma nova senha. Ele vale por 1
            hora.
          </p>
        ) : (
          <>
            <label for="reset-email">E-mail</label>
            <input
              id="reset-email"
              type="email"
              autocomplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
            <ErrorText error={error} />
            <button type="submit" disabled={busy}>
              Enviar link
            </button>
          </>
        )}
        <p>
          <a href="#/">Voltar para o login</a>
        </p>
      </form>
    </main>
  );
}
