import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../ui/api-error';
import { ErrorText } from '../ui/kit';
import { errorMeaning } from '../ui/labels';

/**
 * Every console decision goes through here: a button opens a dialog that says what will happen (with any field
 * the decision needs), nothing is sent before "Confirmar", and what was done is announced afterwards at the top
 * of the page, where it stays after the list or page it came from reloads.
 */
interface Announcement {
  text: string;
  /** A decision refused because what it decided on changed meanwhile (409): said as an error. */
  refused?: boolean;
}

let announce: (said: Announcement) => void = () => undefined;

/** Says a decision was made (the page's status line). */
export function announceDone(text: string): void {
  announce({ text });
}

/** The page's status line for decisions, cleared when the operator moves to another page. */
export function DoneMessage() {
  const [said, setSaid] = useState<Announcement>({ text: '' });
  useEffect(() => {
    announce = setSaid;
    const clear = () => setSaid({ text: '' });
    addEventListener('hashchange', clear);
    return () => {
      announce = () => undefined;
      removeEventListener('hashchange', clear);
    };
  }, []);
  return (
    <div role="status" class="done-status">
      {said.text && (
        <p class={said.refused ? 'error' : 'done'}>
          {said.text}{' '}
          <button type="button" class="link" onClick={() => setSaid({ text: '' })}>
            Fechar
          </button>
        </p>
      )}
    </div>
  );
}

let dialogs = 0;

export interface DecisionProps {
  /** The button's text (and its accessible name, unless `ariaLabel`). */
  label: string;
  ariaLabel?: string;
  danger?: boolean;
  disabled?: boolean;
  /** The dialog's heading and what will happen. */
  title: string;
  children?: ComponentChildren;
  confirmLabel?: string;
  /** False keeps "Confirmar" disabled (a field the decision needs is empty). */
  ready?: boolean;
  /** What is missing while it is not ready, said beside the disabled "Confirmar" (and read with it). */
  waiting?: string;
  /** Does it; its answer decides the message. Throwing keeps the dialog open with the error. */
  run: () => Promise<string>;
  onDone?: () => void;
  onOpen?: () => void;
  /** The submit button of the form around it: the dialog opens only once the form's fields are valid. */
  submit?: boolean;
}

/**
 * A button whose action is confirmed in a dialog and announced when done. As a form's submit button (`submit`)
 * it opens the dialog only when the form's fields are valid, on a click or on Enter in a field (which clicks it).
 */
export function Decision(props: DecisionProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [id] = useState(() => `decision-${++dialogs}`);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const close = () => ref.current?.close();
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      const message = await props.run();
      close();
      announceDone(message);
      props.onDone?.();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'INVALID_STATUS') {
        // what it decided on changed meanwhile (decided by someone else, closed): said at the top of the page,
        // and the list or page it came from shows what it is now
        close();
        announce({ text: errorMeaning(err.code, err.message), refused: true });
        props.onDone?.();
      } else {
        setError(err);
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type={props.submit ? 'submit' : 'button'}
        class={props.danger ? 'danger' : undefined}
        aria-label={props.ariaLabel}
        disabled={props.disabled}
        onClick={(e) => {
          const form = e.currentTarget.form;
          if (props.submit && form && !form.reportValidity()) return;
          e.preventDefault();
          setError(null);
          props.onOpen?.();
          ref.current?.showModal();
        }}
      >
        {props.label}
      </button>
      <dialog ref={ref} class="decision" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>{props.title}</h2>
        {props.children}
        <ErrorText error={error} />
        {props.ready === false && props.waiting && (
          <p class="muted" id={`${id}-waiting`}>
            {props.waiting}
          </p>
        )}
        <div class="actions">
          <button type="button" class="secondary" onClick={close}>
            Voltar
          </button>
          <button
            type="button"
            class={props.danger ? 'danger' : undefined}
            disabled={busy || props.ready === false}
            aria-describedby={props.ready === false && props.waiting ? `${id}-waiting` : undefined}
            onClick={() => void confirm()}
          >
            {props.confirmLabel ?? 'Confirmar'}
          </button>
        </div>
      </dialog>
    </>
  );
}
