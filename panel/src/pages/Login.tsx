import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, type User } from '../api';
import { ErrorText } from '../ui/kit';

export function Login({ onLogin, notice }: { onLogin: (u: User) => void; notice: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // the notice of how the last session ended ("Você saiu."), until this login is tried
  const [showNotice, setShowNotice] = useState(true);
  const codeField = useRef<HTMLInputElement>(null);
  const [signupOpen, setSignupOpen] = useState(false);
  useEffect(() => {
    void api.signupOpen().then(setSignupOpen);
  }, []);
  const emailField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (needsCode) codeField.current?.focus();
  }, [needsCode]);
  return (
    <main class="login">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          setShowNotice(false);
          try {
            onLogin(await api.login(email, password, needsCode ? code : undefined));
          } catch (err) {
            if (err instanceof ApiError && err.code === 'TOTP_REQUIRED') {
              setNeedsCode(true);
              setError(null);
              return;
            }
            // at the code step the password was accepted and can no longer be edited: a refusal is the code's
            const codeRefused = needsCode && err instanceof ApiError && err.code === 'UNAUTHORIZED';
            setError(codeRefused ? new ApiError(401, err.message, 'TOTP_CODE_REFUSED') : err);
            if (codeRefused) {
              // a code is good once: the field starts over, ready for the next one (also after a click)
              setCode('');
              codeField.current?.focus();
            }
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Painel do lojista</h1>
        {notice && showNotice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <label for="email">E-mail</label>
        <input
          id="email"
          ref={emailField}
          type="email"
          autocomplete="username"
          required
          readOnly={needsCode}
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="password">Senha</label>
        <input
          id="password"
          type="password"
          autocomplete="current-password"
          required
          readOnly={needsCode}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        {needsCode && (
          <>
            <label for="totp">Código de verificação</label>
            <input
              id="totp"
              ref={codeField}
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              required
              aria-describedby="totp-help"
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
            <p id="totp-help" class="muted">
              Digite os 6 dígitos do seu aplicativo autenticador.{' '}
              <button
                type="button"
                class="link"
                onClick={() => {
                  setNeedsCode(false);
                  setCode('');
                  setPassword('');
                  setError(null);
                  emailField.current?.focus();
                }}
              >
                Usar outra conta
              </button>
            </p>
          </>
        )}
        <ErrorText error={error} />
        <button type="submit" disabled={busy}>
          Entrar
        </button>
        <p>
          <a href="#/esqueci-senha">Esqueci minha senha</a>
          {signupOpen && (
            <>
              {' · '}
              <a href="#/criar-conta">Criar uma conta</a>
            </>
          )}
        </p>
      </form>
    </main>
  );
}
