import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, FormError } from './api-error';
import { fieldMessage, invalidField } from './field-errors';
import { errorMeaning } from './labels';

/** An error from the API, in words (never raw JSON). */
export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof FormError) {
    return (
      <p class="error" role="alert">
        {error.message}
      </p>
    );
  }
  if (!(error instanceof ApiError)) {
    return (
      <p class="error" role="alert">
        Não foi possível falar com o servidor. Tente de novo.
      </p>
    );
  }
  return (
    <p class="error" role="alert" ref={focusInvalidField}>
      {errorMeaning(error.code, error.message, error.retryAfter)}
    </p>
  );
}

/** The first field its form marks invalid takes the focus, so that the person types where the error is. */
function focusInvalidField(p: HTMLParagraphElement | null) {
  const field = p?.closest('form')?.querySelector<HTMLElement>('[aria-invalid="true"]');
  if (field && document.activeElement !== field) field.focus();
}

/**
 * A form field's marks for an error of the API: with `path` (the API's name of the field: "document",
 * "customer.document", "address.zipCode") the field the error names, `aria-invalid` and the message below it.
 */
export function fieldMarks(error: unknown, path: string, id: string) {
  const named = invalidField(error);
  const invalid = named !== null && (named === path || named.startsWith(`${path}.`));
  return {
    attrs: invalid ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` } : {},
    message: invalid ? (
      <p id={`${id}-error`} class="error field-error">
        {fieldMessage(error)}
      </p>
    ) : null,
  };
}

/**
 * A titled section. With `reveal`, a card that opens below a long list (a sale's details) is brought into
 * view, its title focused, each time `reveal` changes: on a phone it would otherwise open off screen.
 */
export function Card(props: { title: string; children: ComponentChildren; reveal?: string | number }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (props.reveal !== undefined) heading.current?.focus();
  }, [props.reveal]);
  return (
    <section class="card" aria-label={props.title}>
      <h2 ref={heading} tabIndex={props.reveal === undefined ? undefined : -1}>
        {props.title}
      </h2>
      {props.children}
    </section>
  );
}

/** Copies a text (a code, a link) to the clipboard, saying so once done. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="secondary"
      onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true))}
    >
      {copied ? 'Copiado' : label}
    </button>
  );
}

/** A secret shown once: a copy button and a clear warning that it will not be shown again. */
export function SecretOnce({
  label,
  value,
  what = 'esta chave',
}: {
  label: string;
  value: string;
  /** What the warning calls it: "esta chave", "este segredo". */
  what?: string;
}) {
  // the value it was copied for: a new secret shown in the same place reads "Copiar" again
  const [copiedValue, setCopiedValue] = useState<string | null>(null);
  const copied = copiedValue === value;
  return (
    <div class="secret" role="status">
      <p>
        <strong>{label}</strong> — copie agora: você não verá {what} novamente.
      </p>
      <code data-testid="secret-value">{value}</code>
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(() => setCopiedValue(value));
        }}
      >
        {copied ? 'Copiado' : 'Copiar'}
      </button>
    </div>
  );
}

/** The `<option>`s of a select, one per entry of a value → label map (an empty-value "all" option first, if given). */
export function Options({ labels, all }: { labels: Record<string, string>; all?: string }) {
  return (
    <>
      {all !== undefined && <option value="">{all}</option>}
      {Object.entries(labels).map(([value, text]) => (
        <option key={value} value={value}>
          {text}
        </option>
      ))}
    </>
  );
}

/** A row's "Detalhes" link-button; `label` names the row for screen readers ("Detalhes da venda 42"). */
export function DetailsButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button type="button" class="link" onClick={onClick} aria-label={label}>
      Detalhes
    </button>
  );
}

/**
 * `empty`: what to say under the headings when the list has loaded with nothing in it. On a phone each row is
 * shown as a small card of "heading: value" lines (style.css), so every cell carries its column's heading.
 */
export function Table({
  head,
  children,
  label,
  empty,
}: {
  head: string[];
  children: ComponentChildren;
  label: string;
  empty?: string | false | undefined;
}) {
  const table = useRef<HTMLTableElement>(null);
  // explicit roles: a table restyled as blocks (the phone layout) would otherwise lose its table semantics
  // in some browsers' accessibility trees
  // (set here rather than in the markup, where a linter calls them redundant, which they are on a desktop)
  useLayoutEffect(() => {
    const t = table.current;
    if (!t) return;
    t.setAttribute('role', 'table');
    for (const group of [t.tHead, ...t.tBodies]) group?.setAttribute('role', 'rowgroup');
    for (const row of t.rows) {
      row.setAttribute('role', 'row');
      const header = row.parentElement === t.tHead;
      for (const [i, cell] of [...row.cells].entries()) {
        cell.setAttribute('role', header ? 'columnheader' : 'cell');
        if (!header) cell.dataset.label = head[i] ?? '';
      }
    }
  });
  return (
    <>
      <div class="table-wrap">
        <table aria-label={label} ref={table}>
          <thead>
            <tr>
              {head.map((h) => (
                <th key={h} scope="col">
                  {/* the column of a row's buttons: named for screen readers, blank on the screen */}
                  {h === '' ? <span class="sr-only">Ações</span> : h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </div>
      {empty && <p class="muted">{empty}</p>}
    </>
  );
}

/**
 * The error of a component's actions: `attempt` clears the last error (and calls `reset`, e.g. to clear a
 * success message), runs the action, and keeps the error it throws for <ErrorText>.
 */
export function useAttempt(reset?: () => void) {
  const [error, setError] = useState<unknown>(null);
  const acting = useRef(false);
  const attempt = async (action: () => Promise<void>) => {
    setError(null);
    reset?.();
    try {
      await action();
    } catch (err) {
      setError(err);
    }
  };
  /**
   * A person's action (a form sent, a button pressed): as attempt, but one at a time. A second click while the
   * first is on its way sends nothing, so a double click creates one webhook, one key pair, one link, and
   * rotates a secret once.
   */
  const act = async (action: () => Promise<void>) => {
    if (acting.current) return;
    acting.current = true;
    try {
      await attempt(action);
    } finally {
      acting.current = false;
    }
  };
  return { error, setError, attempt, act };
}
