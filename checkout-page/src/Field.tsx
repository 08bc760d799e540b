/** A labelled text input with its problem (or hint) below it, tied by aria-describedby. */
export function Field(props: {
  id: string;
  label: string;
  value: string;
  problem: string | null;
  hint?: string;
  autoComplete?: string;
  inputMode?: 'numeric' | 'decimal' | 'email';
  maxLength?: number;
  onInput: (value: string) => void;
  onBlur: (e: FocusEvent) => void;
}) {
  const id = `f-${props.id}`;
  const note = props.problem ?? props.hint;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.id}
        type="text"
        autoComplete={props.autoComplete ?? 'off'}
        inputMode={props.inputMode}
        maxLength={props.maxLength}
        value={props.value}
        required
        aria-invalid={props.problem ? 'true' : undefined}
        aria-describedby={note ? `${id}-note` : undefined}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
        onBlur={props.onBlur}
      />
      {note && (
        <p id={`${id}-note`} class={props.problem ? 'problem' : 'hint'}>
          {note}
        </p>
      )}
    </div>
  );
}
