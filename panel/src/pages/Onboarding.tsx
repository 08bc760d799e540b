import { useEffect, useState } from 'preact/hooks';
import { api, can, type SignupInput, type Onboarding as State, type User } from '../api';
import { ApiError } from '../ui/api-error';
import { date } from '../ui/format';
import { Card, ErrorText, fieldMarks, useAttempt } from '../ui/kit';
import { errorMeaning } from '../ui/labels';
import { TEST_MODE_IN_REVIEW, useSandbox } from '../ui/sandbox';

export const DOCUMENT_KINDS: Record<string, string> = {
  id_front: 'Documento de identidade (frente)',
  id_back: 'Documento de identidade (verso)',
  selfie: 'Selfie segurando o documento',
  proof_of_address: 'Comprovante de endereço',
  company_contract: 'Contrato social (empresas)',
};

const STATUS_TEXT: Record<string, string> = {
  active: 'Aprovada: cobranças e saques liberados.',
  suspended: 'Suspensa: novas cobranças e saques estão bloqueados. Fale com o suporte.',
  closed: 'Encerrada.',
};

/** The document kinds as a list in words: "A, B e C". */
const kindsText = (kinds: string[]) => {
  const names = kinds.map((k) => DOCUMENT_KINDS[k] ?? k);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} e ${names.at(-1)}` : (names[0] ?? '');
};

/**
 * Where an account in review stands: what it still has to send, or, once everything is sent, that it waits for
 * an operator and what happens next.
 */
function ReviewStatus({ missing }: { missing: string[] }) {
  const meanwhile = useSandbox() ? (
    <>
      {TEST_MODE_IN_REVIEW} <a href="#/cobrancas/nova">Criar uma cobrança de teste</a>
    </>
  ) : null;
  if (missing.length > 0) {
    return (
      <div class="notice" role="status">
        <p>
          <strong>Situação da conta: em análise, faltam documentos.</strong>{' '}
          {missing.length === 1 ? 'Ainda falta 1 documento' : `Ainda faltam ${missing.length} documentos`}:{' '}
          {kindsText(missing)}. Envie {missing.length === 1 ? 'o documento' : 'os documentos'} abaixo; seus
          dados de cadastro já foram recebidos.
        </p>
        <p>Cobranças e saques são liberados depois da aprovação. {meanwhile}</p>
      </div>
    );
  }
  return (
    <div class="notice" role="status">
      <p>
        <strong>Situação da conta: aguardando análise.</strong> Recebemos seus dados e todos os documentos;
        não falta nada.
      </p>
      <p>
        Agora uma pessoa da nossa equipe confere o cadastro e os documentos. Quando a conta for aprovada, você
        recebe um e-mail e as cobranças e os saques são liberados neste painel. Se a conta não for aprovada, o
        e-mail diz o motivo.
      </p>
      {meanwhile && <p>{meanwhile}</p>}
    </div>
  );
}

/** Cadastro: the account's status, the documents sent and those still missing, and sending one. */
export function Onboarding() {
  const [state, setState] = useState<State | null>(null);
  const [kind, setKind] = useState('id_front');
  const [file, setFile] = useState<File | null>(null);
  const [sent, setSent] = useState('');
  const { error, attempt, act } = useAttempt(() => setSent(''));
  const load = () => attempt(async () => setState(await api.onboarding()));
  useEffect(() => {
    void load();
  }, []);
  if (!state) return <ErrorText error={error} />;
  const kindMarks = fieldMarks(error, 'kind', 'doc-kind');
  // a file refused for its type, its size or its content is the file field's error
  const fileWrong =
    error instanceof ApiError &&
    (['UNSUPPORTED_FILE_TYPE', 'PAYLOAD_TOO_LARGE'].includes(error.code) ||
      (error.code === 'VALIDATION_ERROR' && /\bfile\b/.test(error.message)))
      ? error
      : null;
  return (
    <section>
      <h1>Cadastro</h1>
      {state.status === 'pending_review' ? (
        <ReviewStatus missing={state.missing} />
      ) : (
        <p class="notice" role="status">
          Situação da conta: {STATUS_TEXT[state.status] ?? state.status}
          {state.statusReason ? ` Motivo: ${state.statusReason}` : ''}
        </p>
      )}
      <Card title="Documentos">
        {state.documents.length === 0 ? (
          <p class="muted">Nenhum documento enviado ainda.</p>
        ) : (
          <ul>
            {state.documents.map((d) => (
              <li key={d.id}>
                {DOCUMENT_KINDS[d.kind] ?? d.kind} — enviado em {date(d.uploadedAt)}
              </li>
            ))}
          </ul>
        )}
        {state.missing.length > 0 && (
          <p>Faltam: {state.missing.map((k) => DOCUMENT_KINDS[k] ?? k).join(', ')}.</p>
        )}
      </Card>
      {can('team') && (
        <Card title="Enviar documento">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (!file) return;
              void act(async () => {
                const form = new FormData();
                form.append('kind', kind);
                form.append('file', file, file.name);
                await api.uploadDocument(form);
                setSent(`${DOCUMENT_KINDS[kind]} enviado.`);
                setState(await api.onboarding());
              });
            }}
          >
            <label for="doc-kind">Documento</label>
            <select
              id="doc-kind"
              value={kind}
              onChange={(e) => setKind(e.currentTarget.value)}
              {...kindMarks.attrs}
            >
              {Object.entries(DOCUMENT_KINDS).map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </select>
            {kindMarks.message}
            <label for="doc-file">Arquivo (PDF, PNG ou JPEG, até 10 MB)</label>
            <input
              id="doc-file"
              type="file"
              accept="application/pdf,image/png,image/jpeg"
              required
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
              {...(fileWrong
                ? { 'aria-invalid': 'true' as const, 'aria-describedby': 'doc-file-error' }
                : {})}
            />
            {fileWrong && (
              <p id="doc-file-error" class="error field-error">
                {errorMeaning(fileWrong.code, fileWrong.message)}
              </p>
            )}
            <button type="submit">Enviar</button>
          </form>
          <p class="muted">
            Um novo envio de um documento substitui o anterior do mesmo tipo. Até 10 envios em 24 horas, e até
            40 MB somando os documentos atuais.
          </p>
          {sent && (
            <p class="notice" role="status">
              {sent}
            </p>
          )}
        </Card>
      )}
      <ErrorText error={error} />
    </section>
  );
}

const ADDRESS_PARTS = new Set(['street', 'number', 'complement', 'district', 'city', 'state', 'zipCode']);

/** Criar conta (SIGNUP=on): the business, its owner and address; the account starts in review. */
export function SignUp({ onSignedIn }: { onSignedIn: (u: User) => void }) {
  const [form, setForm] = useState({
    name: '',
    legalName: '',
    document: '',
    email: '',
    password: '',
    phone: '',
    street: '',
    number: '',
    complement: '',
    district: '',
    city: '',
    state: '',
    zipCode: '',
  });
  const { error, act } = useAttempt();
  const sandbox = useSandbox();
  const field = (key: keyof typeof form, text: string, extra: Record<string, unknown> = {}) => {
    // the API names the address's parts inside `address` ("address.zipCode")
    const marks = fieldMarks(error, ADDRESS_PARTS.has(key) ? `address.${key}` : key, `su-${key}`);
    return (
      <>
        <label for={`su-${key}`}>{text}</label>
        <input
          id={`su-${key}`}
          required={key !== 'complement'}
          value={form[key]}
          onInput={(e) => setForm({ ...form, [key]: e.currentTarget.value })}
          {...extra}
          {...marks.attrs}
        />
        {marks.message}
      </>
    );
  };
  return (
    <main class="login">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const { street, number, complement, district, city, state, zipCode, ...rest } = form;
            const body: SignupInput = {
              ...rest,
              address: {
                street,
                number,
                district,
                city,
                state: state.toUpperCase(),
                zipCode,
                ...(complement ? { complement } : {}),
              },
            };
            onSignedIn(await api.signUp(body));
            location.hash = '#/cadastro';
          });
        }}
      >
        <h1>Criar conta</h1>
        <p>
          A conta fica em análise até aprovarmos seus dados e documentos
          {sandbox
            ? `. ${TEST_MODE_IN_REVIEW}`
            : ': depois da aprovação, você recebe um e-mail e pode cobrar.'}
        </p>
        {field('name', 'Nome da loja')}
        {field('legalName', 'Razão social ou nome completo')}
        {field('document', 'CPF ou CNPJ', { inputMode: 'numeric' })}
        {field('email', 'E-mail', { type: 'email', autocomplete: 'username' })}
        {field('password', 'Senha (mínimo de 8 caracteres)', {
          type: 'password',
          minLength: 8,
          autocomplete: 'new-password',
        })}
        {field('phone', 'Telefone', { type: 'tel', autocomplete: 'tel' })}
        {field('street', 'Rua')}
        {field('number', 'Número')}
        {field('complement', 'Complemento (opcional)')}
        {field('district', 'Bairro')}
        {field('city', 'Cidade')}
        {field('state', 'UF', { maxLength: 2, pattern: '[A-Za-z]{2}' })}
        {field('zipCode', 'CEP', { inputMode: 'numeric', pattern: '\\d{5}-?\\d{3}' })}
        <ErrorText error={error} />
        <button type="submit">Criar conta</button>
        <p>
          <a href="#/">Já tenho conta</a>
        </p>
      </form>
    </main>
  );
}
